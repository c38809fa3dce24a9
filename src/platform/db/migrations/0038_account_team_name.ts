import type { Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * The team's name, which its owner sets: invitations, the account switcher and the Members page
 * show it. Null: the owner's email stands for it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('team_name', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('team_name').execute();
}

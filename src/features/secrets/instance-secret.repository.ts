import type { Executor } from '../../platform/db/database.js';
import type { InstanceSecretRow } from '../../platform/db/schema.js';

export async function findInstanceSecretRow(db: Executor, name: string): Promise<InstanceSecretRow | undefined> {
  return db.selectFrom('instance_secrets').selectAll().where('name', '=', name).executeTakeFirst();
}

/** Stores the secret unless another instance stored one under that name first (then nothing happens). */
export async function insertInstanceSecretIfAbsent(db: Executor, row: InstanceSecretRow): Promise<void> {
  await db
    .insertInto('instance_secrets')
    .values(row)
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

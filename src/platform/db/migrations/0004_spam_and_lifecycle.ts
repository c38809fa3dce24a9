import { sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * Spam rules and data lifecycle (docs/spam-and-privacy.md): per-form rule and privacy
 * settings, why a submission is spam, and whether its outbound work (hooks, notifications) was
 * ever released, so marking it "not spam" sends it at most once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds one column at a time.
  const formColumns: Array<[string, 'text' | 'integer', string | null]> = [
    ['blocked_terms', 'text', '[]'],
    ['blocked_emails', 'text', '[]'],
    ['allowed_origins', 'text', '[]'],
    ['max_links', 'integer', null],
    ['retention_days', 'integer', null],
    ['store_ip', 'text', 'full'],
    ['turnstile_site_key', 'text', null],
  ];
  for (const [name, type, defaultValue] of formColumns) {
    await db.schema
      .alterTable('forms')
      .addColumn(name, type, (c) => (defaultValue === null ? c : c.notNull().defaultTo(defaultValue)))
      .execute();
  }
  await db.schema.alterTable('submissions').addColumn('spam_reason', 'text').execute();
  await db.schema
    .alterTable('submissions')
    .addColumn('outbound_released', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // Non-spam rows were queued for their hooks when they arrived. Why older spam was filtered
  // was never recorded; "honeypot" is the closest honest guess (documented in the README).
  await sql`update submissions set outbound_released = 1 where is_spam = 0`.execute(db);
  await sql`update submissions set spam_reason = 'honeypot' where is_spam = 1`.execute(db);
  // Deleting submissions (retention, erasure, form deletion) cascades to their deliveries:
  // without this index every deleted submission scans the whole deliveries table.
  await db.schema.createIndex('hook_deliveries_submission_idx').on('hook_deliveries').column('submission_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('hook_deliveries_submission_idx').ifExists().execute();
  for (const name of ['outbound_released', 'spam_reason']) await db.schema.alterTable('submissions').dropColumn(name).execute();
  for (const name of ['turnstile_site_key', 'store_ip', 'retention_days', 'max_links', 'allowed_origins', 'blocked_emails', 'blocked_terms']) {
    await db.schema.alterTable('forms').dropColumn(name).execute();
  }
}

import { sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * Bot checks without third parties and a filter that learns (docs/bot-checks.md): the form's
 * bot-check vendor and its settings, the ALTCHA solutions already spent (single use on every
 * instance: a unique key in the database, not Redis, so a replay never passes while Redis is
 * down), and the learning filter's per-account token counts, shared by every instance.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds one column at a time.
  const formColumns: Array<[string, 'text' | 'integer' | 'double precision', string | number | null]> = [
    ['bot_check', 'text', 'none'],
    ['hcaptcha_secret', 'text', null],
    ['hcaptcha_site_key', 'text', null],
    ['recaptcha_secret', 'text', null],
    ['recaptcha_site_key', 'text', null],
    ['recaptcha_min_score', 'double precision', 0.5],
    ['altcha_complexity', 'text', 'medium'],
    ['min_fill_seconds', 'integer', 0],
    ['spam_filter', 'text', 'off'],
  ];
  for (const [name, type, defaultValue] of formColumns) {
    await db.schema
      .alterTable('forms')
      .addColumn(name, type, (c) => (defaultValue === null ? c : c.notNull().defaultTo(defaultValue)))
      .execute();
  }
  // "Require the bot check" meant Turnstile, and still does.
  await sql`update forms set bot_check = 'turnstile' where require_bot_check = 1`.execute(db);
  // The learning filter's score of a submission it filed as spam; null otherwise.
  await db.schema.alterTable('submissions').addColumn('spam_score', 'double precision').execute();

  await db.schema
    .createTable('altcha_spent_solutions')
    .addColumn('challenge', 'text', (c) => c.primaryKey())
    .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('altcha_spent_solutions_expires_idx').on('altcha_spent_solutions').column('expires_at').execute();
  await db.schema.createIndex('altcha_spent_solutions_form_idx').on('altcha_spent_solutions').column('form_id').execute();

  await db.schema
    .createTable('spam_filter_models')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('spam_examples', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('ham_examples', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('spam_filter_tokens')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('spam_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('ham_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('spam_filter_tokens_pk', ['account_id', 'token'])
    .execute();
  await db.schema.createIndex('spam_filter_tokens_version_idx').on('spam_filter_tokens').columns(['account_id', 'version']).execute();
  // What the filter learned from each submission, so a later mark replaces the lesson instead of adding a second one.
  await db.schema
    .createTable('spam_filter_lessons')
    .addColumn('submission_id', 'text', (c) => c.primaryKey().references('submissions.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('spam_filter_lessons_account_idx').on('spam_filter_lessons').column('account_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['spam_filter_lessons', 'spam_filter_tokens', 'spam_filter_models', 'altcha_spent_solutions']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
  await db.schema.alterTable('submissions').dropColumn('spam_score').execute();
  for (const name of ['spam_filter', 'min_fill_seconds', 'altcha_complexity', 'recaptcha_min_score', 'recaptcha_site_key', 'recaptcha_secret', 'hcaptcha_site_key', 'hcaptcha_secret', 'bot_check']) {
    await db.schema.alterTable('forms').dropColumn(name).execute();
  }
}

import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
import type { DatabaseHandle } from './database.js';
import * as m0001 from './migrations/0001_initial.js';
import * as m0002 from './migrations/0002_hook_fanouts.js';
import * as m0003 from './migrations/0003_collation_and_secrets.js';
import * as m0004 from './migrations/0004_spam_and_lifecycle.js';
import * as m0005 from './migrations/0005_email_notifications.js';
import * as m0006 from './migrations/0006_dashboard_search.js';
import * as m0007 from './migrations/0007_counters_per_batch.js';
import * as m0008 from './migrations/0008_auto_reply_and_pages.js';
import * as m0009 from './migrations/0009_integrations.js';
import * as m0010 from './migrations/0010_bot_checks_and_spam_filter.js';
import * as m0011 from './migrations/0011_admin_and_sessions.js';
import * as m0012 from './migrations/0012_search_indexed_after_commit.js';
import * as m0013 from './migrations/0013_hourly_counts.js';
import * as m0014 from './migrations/0014_forms_created_index.js';
import * as m0015 from './migrations/0015_postgres_submit_counts.js';
import * as m0016 from './migrations/0016_search_vector_parallel_restricted.js';
import * as m0017 from './migrations/0017_sqlite_search_merges_in_steps.js';
import * as m0018 from './migrations/0018_counters_hours_before_totals.js';
import * as m0019 from './migrations/0019_deliveries_sent_again.js';
import * as m0020 from './migrations/0020_team_inbox.js';
import * as m0021 from './migrations/0021_email_changes_and_time_zones.js';
import * as m0022 from './migrations/0022_api_key_scopes.js';
import * as m0023 from './migrations/0023_files.js';
import * as m0024 from './migrations/0024_submission_language.js';
import * as m0025 from './migrations/0025_sso_identities.js';
import * as m0026 from './migrations/0026_audit_log.js';
import * as m0027 from './migrations/0027_users_and_memberships.js';
import * as m0028 from './migrations/0028_hook_delivery_attempts.js';
import * as m0029 from './migrations/0029_outbox_attempts.js';
import * as m0030 from './migrations/0030_instance_admin_is_a_user.js';
import * as m0031 from './migrations/0031_email_confirmation.js';
import * as m0032 from './migrations/0032_tests_and_skips_in_outbox_log.js';
import * as m0033 from './migrations/0033_sessions_signed_on_at.js';
import * as m0034 from './migrations/0034_form_keys_and_api_writes.js';
import * as m0036 from './migrations/0036_integration_settings.js';
import * as m0037 from './migrations/0037_assignees_are_triagers.js';
import * as m0038 from './migrations/0038_account_team_name.js';

// Listed statically so the compiled package needs no file-system scan to find migrations.
const migrations: Record<string, Migration> = {
  '0001_initial': m0001,
  '0002_hook_fanouts': m0002,
  '0003_collation_and_secrets': m0003,
  '0004_spam_and_lifecycle': m0004,
  '0005_email_notifications': m0005,
  '0006_dashboard_search': m0006,
  '0007_counters_per_batch': m0007,
  '0008_auto_reply_and_pages': m0008,
  '0009_integrations': m0009,
  '0010_bot_checks_and_spam_filter': m0010,
  '0011_admin_and_sessions': m0011,
  '0012_search_indexed_after_commit': m0012,
  '0013_hourly_counts': m0013,
  '0014_forms_created_index': m0014,
  '0015_postgres_submit_counts': m0015,
  '0016_search_vector_parallel_restricted': m0016,
  '0017_sqlite_search_merges_in_steps': m0017,
  '0018_counters_hours_before_totals': m0018,
  '0019_deliveries_sent_again': m0019,
  '0020_team_inbox': m0020,
  '0021_email_changes_and_time_zones': m0021,
  '0022_api_key_scopes': m0022,
  '0023_files': m0023,
  '0024_submission_language': m0024,
  '0025_sso_identities': m0025,
  '0026_audit_log': m0026,
  '0027_users_and_memberships': m0027,
  '0028_hook_delivery_attempts': m0028,
  '0029_outbox_attempts': m0029,
  '0030_instance_admin_is_a_user': m0030,
  '0031_email_confirmation': m0031,
  '0032_tests_and_skips_in_outbox_log': m0032,
  '0033_sessions_signed_on_at': m0033,
  '0034_form_keys_and_api_writes': m0034,
  '0036_integration_settings': m0036,
  '0037_assignees_are_triagers': m0037,
  '0038_account_team_name': m0038,
};

/** The connection's own PostgreSQL schema; undefined on SQLite. */
export async function currentSchema(handle: DatabaseHandle): Promise<string | undefined> {
  if (handle.dialect !== 'postgres') return undefined;
  return (await sql<{ schema: string }>`select current_schema() as schema`.execute(handle.db)).rows[0]?.schema;
}

/**
 * A Migrator over Formgate's migrations, or over those up to and including `upTo` (tests build
 * the schema an older release left with it).
 */
export async function createMigrator(handle: DatabaseHandle, upTo?: string): Promise<Migrator> {
  if (upTo !== undefined && !(upTo in migrations)) throw new Error(`no migration ${upTo}`);
  const names = Object.keys(migrations);
  const chosen = upTo === undefined ? migrations : Object.fromEntries(names.slice(0, names.indexOf(upTo) + 1).map((name) => [name, migrations[name]!]));
  const provider: MigrationProvider = { getMigrations: async () => chosen };
  // Kysely looks for its bookkeeping tables in every schema unless told which one: name the
  // connection's own, so databases that hold several Formgate schemas stay apart.
  const schema = await currentSchema(handle);
  return new Migrator({
    db: handle.db,
    provider,
    // Numbers are reserved per feature: a database that ran 0010 before 0008 existed must still
    // accept 0008 later instead of refusing to start.
    allowUnorderedMigrations: true,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
}

/** Brings the schema to the latest version; a no-op when it is already there. */
export async function migrateToLatest(handle: DatabaseHandle): Promise<string[]> {
  const { error, results } = await (await createMigrator(handle)).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createMigrator, migrateToLatest } from '../../src/platform/db/migrate.js';
import { emptyDatabaseForFile } from '../helpers/database.js';
import { servicesFor } from '../helpers/factories.js';

const file = emptyDatabaseForFile();

describe('migration 0010 (bot checks and the learning filter)', () => {
  it('turns "require the bot check" into botCheck turnstile, and leaves the other forms without a check', async () => {
    // A database as the release before this one left it.
    const old = await createMigrator(file.handle, '0007_counters_per_batch');
    expect((await old.migrateToLatest()).error).toBeUndefined();
    const now = new Date().toISOString();
    await sql`insert into accounts (id, email, display_name, plan_id, password_hash, created_at) values ('acc_1', 'a@example.com', 'A', 'pro', null, ${now})`.execute(file.handle.db);
    for (const [id, required] of [['frm_checked', 1], ['frm_plain', 0]] as const) {
      await sql`insert into forms (id, account_id, name, is_active, access_key, require_bot_check, turnstile_secret, success_url, error_url, allowed_redirect_hosts, created_at, updated_at)
        values (${id}, 'acc_1', 'F', 1, null, ${required}, 'ts', null, null, '[]', ${now}, ${now})`.execute(file.handle.db);
    }

    expect(await migrateToLatest(file.handle)).toEqual(['0008_auto_reply_and_pages', '0009_integrations', '0010_bot_checks_and_spam_filter', '0011_admin_and_sessions', '0012_search_indexed_after_commit', '0013_hourly_counts', '0014_forms_created_index', '0015_postgres_submit_counts', '0016_search_vector_parallel_restricted', '0017_sqlite_search_merges_in_steps', '0018_counters_hours_before_totals', '0019_deliveries_sent_again', '0020_team_inbox', '0021_email_changes_and_time_zones', '0022_api_key_scopes', '0023_files', '0024_submission_language', '0025_sso_identities', '0026_audit_log', '0027_users_and_memberships', '0028_hook_delivery_attempts', '0029_outbox_attempts', '0030_instance_admin_is_a_user', '0031_email_confirmation', '0032_tests_and_skips_in_outbox_log', '0033_sessions_signed_on_at', '0034_form_keys_and_api_writes', '0036_integration_settings', '0037_assignees_are_triagers', '0038_account_team_name']);
    const forms = servicesFor(file.handle).forms;
    expect(await forms.getForm('frm_checked')).toMatchObject({ botCheck: 'turnstile', requireBotCheck: true, spamFilter: 'off', altchaComplexity: 'medium', minFillSeconds: 0, recaptchaMinScore: 0.5 });
    expect(await forms.getForm('frm_plain')).toMatchObject({ botCheck: 'none', requireBotCheck: false, spamFilter: 'off' });
  });
});

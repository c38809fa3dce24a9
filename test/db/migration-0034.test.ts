import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createMigrator, migrateToLatest } from '../../src/platform/db/migrate.js';
import { emptyDatabaseForFile } from '../helpers/database.js';
import { createOwner, servicesFor } from '../helpers/factories.js';

const file = emptyDatabaseForFile();

/** Raw rows: the older schema is not today's schema type. */
const db = () => file.handle.db as unknown as Kysely<any>;

const at = '2026-12-01T10:00:00.000Z';
const key = (id: string, scope: string) => ({ id, account_id: '', name: id, key_hash: `hash_${id}`, key_prefix: 'fgk_x', created_at: at, scope });

describe('migration 0034 (form keys, revisions, the manage scope, idempotent API writes)', () => {
  it('keeps every key its scope, admits manage, and gives forms a key unique per account', async () => {
    await migrateToLatest(file.handle);
    const services = servicesFor(file.handle);
    const owner = await createOwner(services);
    const other = await createOwner(services);
    expect((await (await createMigrator(file.handle)).migrateTo('0033_sessions_signed_on_at')).error).toBeUndefined();
    await db().insertInto('api_keys').values([{ ...key('key_r', 'read'), account_id: owner.account.id }, { ...key('key_t', 'triage'), account_id: owner.account.id }]).execute();
    // The old check refuses the new scope.
    await expect(db().insertInto('api_keys').values({ ...key('key_m0', 'manage'), account_id: owner.account.id }).execute()).rejects.toThrow();

    expect(await migrateToLatest(file.handle)).toEqual(['0034_form_keys_and_api_writes']);
    const scopes = await db().selectFrom('api_keys').select(['id', 'scope']).where('id', 'in', ['key_r', 'key_t']).orderBy('id').execute();
    expect(scopes).toEqual([{ id: 'key_r', scope: 'read' }, { id: 'key_t', scope: 'triage' }]);
    await db().insertInto('api_keys').values({ ...key('key_m', 'manage'), account_id: owner.account.id }).execute();
    await expect(db().insertInto('api_keys').values({ ...key('key_x', 'admin'), account_id: owner.account.id }).execute()).rejects.toThrow();

    const form = await db().selectFrom('forms').select(['config_key', 'revision']).where('id', '=', owner.form.id).executeTakeFirstOrThrow();
    expect([form.config_key, Number(form.revision)]).toEqual([null, 0]);
    await db().updateTable('forms').set({ config_key: 'contact' }).where('id', '=', owner.form.id).execute();
    // Another account may use the same key; a second form of the same account may not.
    await db().updateTable('forms').set({ config_key: 'contact' }).where('id', '=', other.form.id).execute();
    const second = await services.forms.createForm(owner.account.id, { name: 'Second' });
    await expect(db().updateTable('forms').set({ config_key: 'contact' }).where('id', '=', second.id).execute()).rejects.toThrow();

    // Down and up again: a manage key falls back to read, nothing else is lost.
    const migrator = await createMigrator(file.handle);
    expect((await migrator.migrateTo('0033_sessions_signed_on_at')).error).toBeUndefined();
    expect(await db().selectFrom('api_keys').select('scope').where('id', '=', 'key_m').executeTakeFirstOrThrow()).toEqual({ scope: 'read' });
    expect(await migrateToLatest(file.handle)).toEqual(['0034_form_keys_and_api_writes']);
  });
});

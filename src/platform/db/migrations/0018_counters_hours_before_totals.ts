import { SqliteAdapter, sql, type Kysely } from 'kysely';

// Frozen: never import application code here.

/**
 * PostgreSQL only: the delete and spam-change triggers (migration 0013) updated, for each (form,
 * hour) of a statement, the hour's counter row and then the form's total. A deletion or a mark
 * spanning several hours thus held a total while it went for the next hour's row, and a submit
 * statement (migration 0015: its hourly rows, then its totals) holding that hour's row and waiting
 * for the total closed a cycle that PostgreSQL broke by rolling one of the two back. Now both
 * triggers update every hourly row first and the totals after, each in key order: the submit
 * statement's order, so no cycle forms. SQLite has one writer at a time and keeps its triggers.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await counterFunctions(db, 'hours before totals');
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await counterFunctions(db, 'hour by hour');
}

/** What a trigger subtracts from inbox and adds to spam, per group of its transition tables' rows. */
const CHANGES = {
  formgate_count_deleted: {
    from: 'old_rows n',
    where: 'true',
    inbox: 'sum(1 - n.is_spam)',
    spam: 'sum(-n.is_spam)',
  },
  formgate_count_spam_changed: {
    from: 'new_rows n join old_rows o on o.id = n.id',
    where: 'n.is_spam <> o.is_spam',
    inbox: 'sum(n.is_spam - o.is_spam)',
    spam: 'sum(n.is_spam - o.is_spam)',
  },
};

/**
 * Both counting functions. 'hour by hour' is migration 0013's order (each hour's row, then the
 * form's total); 'hours before totals' updates every hour's row, then every total, in key order.
 * Any shard of a key may take the change: only the sum over shards is read.
 */
async function counterFunctions(db: Kysely<any>, order: 'hour by hour' | 'hours before totals'): Promise<void> {
  const hourRow = `(form_id, hour, shard) = (
            select form_id, hour, shard from form_hourly_counts where form_id = r.form_id and hour = r.k limit 1)`;
  const totalRow = '(form_id, shard) = (select form_id, shard from form_counts where form_id = r.form_id limit 1)';
  const update = (table: string, row: string) => `update ${table} set inbox = inbox - r.inbox, spam = spam + r.spam where ${row};`;
  for (const [name, c] of Object.entries(CHANGES)) {
    const byHour = `select n.form_id, substr(n.created_at, 1, 13) as k, ${c.inbox} as inbox, ${c.spam} as spam
               from ${c.from} where ${c.where} group by n.form_id, substr(n.created_at, 1, 13)`;
    const byForm = `select n.form_id, ${c.inbox} as inbox, ${c.spam} as spam from ${c.from} where ${c.where} group by n.form_id order by n.form_id`;
    const body =
      order === 'hour by hour'
        ? `for r in ${byHour} loop
        ${update('form_hourly_counts', hourRow)}
        ${update('form_counts', totalRow)}
      end loop;`
        : `for r in ${byHour} order by n.form_id, k loop
        ${update('form_hourly_counts', hourRow)}
      end loop;
      for r in ${byForm} loop
        ${update('form_counts', totalRow)}
      end loop;`;
    await sql.raw(`create or replace function ${name}() returns trigger language plpgsql as $$
    declare r record;
    begin
      ${body}
      return null;
    end $$`).execute(db);
  }
}

import { CompiledQuery, sql, type Kysely, type RawBuilder } from 'kysely';
import type { Dialect, Executor } from '../../platform/db/database.js';
import type { TableInfo } from './database-copy.types.js';

/** The copier reads and writes tables it knows only by name: the schema type cannot describe them. */
type AnyDb = Kysely<Record<string, Record<string, unknown>>>;
const any = (db: Executor) => db as unknown as AnyDb;

const MIGRATION_TABLES = ['kysely_migration', 'kysely_migration_lock'];

/**
 * Every ordinary table of the schema with its columns, primary key and the tables it references.
 * Left out: SQLite's own tables, virtual tables and their shadow tables (the FTS5 search index,
 * rebuilt from the copied rows), and the migrator's bookkeeping.
 */
export async function listTables(db: Executor, dialect: Dialect): Promise<TableInfo[]> {
  return dialect === 'sqlite' ? listSqliteTables(db) : listPostgresTables(db);
}

async function listSqliteTables(db: Executor): Promise<TableInfo[]> {
  const tables = await sql<{ name: string; wr: number }>`
    select name, wr from pragma_table_list
    where schema = 'main' and type = 'table' and name not like 'sqlite\\_%' escape '\\'
    order by name`.execute(db);
  const result: TableInfo[] = [];
  for (const { name, wr } of tables.rows) {
    if (MIGRATION_TABLES.includes(name)) continue;
    const columns = await sql<{ name: string; type: string; pk: number }>`
      select name, type, pk from pragma_table_info(${name}) order by cid`.execute(db);
    const references = await sql<{ table: string }>`select "table" from pragma_foreign_key_list(${name})`.execute(db);
    result.push({
      name,
      columns: columns.rows.map((c) => ({ name: c.name, type: c.type.toLowerCase() })),
      primaryKey: columns.rows.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name),
      references: [...new Set(references.rows.map((r) => r.table))],
      withoutRowid: wr === 1,
    });
  }
  return result;
}

async function listPostgresTables(db: Executor): Promise<TableInfo[]> {
  const tables = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'
    order by table_name`.execute(db);
  const columns = await sql<{ table: string; name: string; type: string }>`
    select table_name as "table", column_name as name, data_type as type from information_schema.columns
    where table_schema = current_schema() order by table_name, ordinal_position`.execute(db);
  const keys = await sql<{ table: string; kind: string; columns: string[]; referenced: string | null }>`
    select c.conrelid::regclass::text as "table", c.contype as kind,
      array(select a.attname::text from unnest(c.conkey) with ordinality k(num, pos)
            join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.num order by k.pos) as columns,
      case when c.contype = 'f' then c.confrelid::regclass::text end as referenced
    from pg_constraint c join pg_namespace n on n.oid = c.connamespace
    where n.nspname = current_schema() and c.contype in ('p', 'f')`.execute(db);
  const unquote = (name: string) => name.replace(/^"|"$/g, '');
  return tables.rows
    .filter(({ name }) => !MIGRATION_TABLES.includes(name))
    .map(({ name }) => ({
      name,
      columns: columns.rows.filter((c) => c.table === name).map((c) => ({ name: c.name, type: c.type.toLowerCase() })),
      primaryKey: keys.rows.find((k) => unquote(k.table) === name && k.kind === 'p')?.columns ?? [],
      references: [...new Set(keys.rows.filter((k) => unquote(k.table) === name && k.kind === 'f').map((k) => unquote(k.referenced!)))],
      withoutRowid: true,
    }));
}

/** The names of the migrations applied, sorted; undefined when the migrator never ran here. */
export async function listAppliedMigrations(db: Executor, dialect: Dialect): Promise<string[] | undefined> {
  const exists =
    dialect === 'sqlite'
      ? await sql`select 1 from pragma_table_list where schema = 'main' and name = 'kysely_migration'`.execute(db)
      : await sql`select 1 from information_schema.tables where table_schema = current_schema() and table_name = 'kysely_migration'`.execute(db);
  if (exists.rows.length === 0) return undefined;
  const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.rows.map((r) => r.name);
}

export async function countRows(db: Executor, table: string): Promise<number> {
  const row = await any(db).selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function tableHasRows(db: Executor, table: string): Promise<boolean> {
  return (await any(db).selectFrom(table).select(sql.lit(1).as('one')).limit(1).executeTakeFirst()) !== undefined;
}

/** Reads one table of the snapshot batch by batch. */
export interface RowReader {
  /** The next rows (fewer than `limit`, or none, at the end). */
  next(limit: number): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/**
 * The rows of a table in arrival order, which a SQLite target turns into its rowids (the order
 * SQLite's search walks): from SQLite, its rowid order, by keyset; from PostgreSQL, which keeps
 * no arrival order, `created_at` then the primary key where the table has that column, else the
 * primary key, through a cursor (one sort, however many batches). `db` must be the snapshot's
 * transaction.
 */
export async function openRowReader(db: Executor, dialect: Dialect, table: TableInfo): Promise<RowReader> {
  if (dialect === 'sqlite') return sqliteReader(db, table);
  const order = [...(table.columns.some((c) => c.name === 'created_at') ? ['created_at'] : []), ...table.primaryKey.filter((c) => c !== 'created_at')];
  const orderBy = order.length > 0 ? order : table.columns.map((c) => c.name);
  const cursor = sql.id('formgate_copy');
  await sql`declare ${cursor} no scroll cursor for select * from ${sql.table(table.name)} order by ${sql.join(orderBy.map((c) => sql.ref(c)))}`.execute(db);
  return {
    next: async (limit) => (await sql<Record<string, unknown>>`fetch forward ${sql.lit(limit)} from ${cursor}`.execute(db)).rows,
    close: async () => {
      await sql`close ${cursor}`.execute(db);
    },
  };
}

function sqliteReader(db: Executor, table: TableInfo): RowReader {
  let after: number | undefined;
  let offset = 0;
  return {
    next: async (limit) => {
      if (table.withoutRowid) {
        // No rowid: the primary key's order, by offset (the snapshot does not change between batches).
        let query = any(db).selectFrom(table.name).selectAll();
        for (const column of table.primaryKey.length > 0 ? table.primaryKey : table.columns.map((c) => c.name)) query = query.orderBy(column);
        const rows = await query.limit(limit).offset(offset).execute();
        offset += rows.length;
        return rows;
      }
      const rows = await sql<Record<string, unknown>>`
        select rowid as ${sql.id(ROWID)}, * from ${sql.table(table.name)}
        ${after === undefined ? sql`` : sql`where rowid > ${after}`} order by rowid limit ${limit}`.execute(db);
      const last = rows.rows[rows.rows.length - 1];
      if (last) after = Number(last[ROWID]);
      return rows.rows.map(({ [ROWID]: _rowid, ...row }) => row);
    },
    close: async () => {},
  };
}

/** The rowid's name in a batch: no column of a table can be called this. */
const ROWID = 'formgate_copy_rowid';

/**
 * One multi-row insert. The statement's text is written here and kept per shape (table, columns,
 * row count): building a thousand-row insert through the query builder cost more than running it.
 */
export async function insertRows(db: Executor, dialect: Dialect, table: string, columns: string[], rows: unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  const key = `${dialect}\u0000${table}\u0000${columns.join('\u0000')}\u0000${rows.length}`;
  let text = insertTexts.get(key);
  if (!text) {
    let n = 0;
    const row = () => `(${columns.map(() => (dialect === 'postgres' ? `$${++n}` : '?')).join(', ')})`;
    text = `insert into ${quoteId(table)} (${columns.map(quoteId).join(', ')}) values ${Array.from({ length: rows.length }, row).join(', ')}`;
    if (insertTexts.size >= 64) insertTexts.clear();
    insertTexts.set(key, text);
  }
  await db.executeQuery(CompiledQuery.raw(text, rows.flat()));
}

const insertTexts = new Map<string, string>();
const quoteId = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * PostgreSQL: every sequence owned by a column (serial, identity) restarts after the copied rows'
 * highest value, so the next row the database numbers itself does not collide with a copied one.
 * Returns the columns it reset.
 */
export async function resetPostgresSequences(db: Executor): Promise<string[]> {
  const owned = await sql<{ table: string; column: string; sequence: string }>`
    select c.table_name as "table", c.column_name as "column",
      pg_get_serial_sequence(quote_ident(c.table_name), c.column_name) as sequence
    from information_schema.columns c
    where c.table_schema = current_schema()
      and pg_get_serial_sequence(quote_ident(c.table_name), c.column_name) is not null`.execute(db);
  for (const { table, column, sequence } of owned.rows) {
    const max: RawBuilder<unknown> = sql`(select max(${sql.ref(column)}) from ${sql.table(table)})`;
    await sql`select setval(${sequence}, coalesce(${max}, 0) + 1, false)`.execute(db);
  }
  return owned.rows.map((r) => `${r.table}.${r.column}`);
}

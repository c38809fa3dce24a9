export interface ColumnInfo {
  name: string;
  /** The declared type, lower case (`text`, `integer`, `bigint`, `double precision`, …). */
  type: string;
}

export interface TableInfo {
  name: string;
  columns: ColumnInfo[];
  /** Primary key columns in key order; empty when the table has none. */
  primaryKey: string[];
  /** Tables its foreign keys point at. */
  references: string[];
  /** SQLite: declared WITHOUT ROWID (always true on PostgreSQL, which has no rowid). */
  withoutRowid: boolean;
}

/** Rows of one table on both sides once copied. */
export interface TableCount {
  table: string;
  source: number;
  target: number;
}

export interface CopyResult {
  /** Every copied table, in the order copied. */
  tables: TableCount[];
  /** true when every table has as many rows in the target as in the snapshot (else nothing was kept). */
  matched: boolean;
  rows: number;
  durationMs: number;
}

export interface CopyProgress {
  table: string;
  copied: number;
  total: number;
}

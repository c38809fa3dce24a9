import type { TableInfo } from './database-copy.types.js';

export class TableOrderError extends Error {}

/**
 * The tables in an order where every table comes after the tables its foreign keys point at, so
 * each row's parent is already there. Ties go alphabetically, so the order is the same on every
 * run. A table referencing itself or a cycle of tables cannot be ordered this way: refused by
 * name rather than copied with a missing parent.
 */
export function orderByForeignKeys(tables: TableInfo[]): TableInfo[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  for (const table of tables) {
    if (table.references.includes(table.name)) {
      throw new TableOrderError(`The table ${table.name} references itself: the copier does not know how to order its rows.`);
    }
    const unknown = table.references.filter((name) => !byName.has(name));
    if (unknown.length > 0) {
      throw new TableOrderError(`The table ${table.name} references ${unknown.join(', ')}, which is not copied: the copier does not know how to order it.`);
    }
  }
  const ordered: TableInfo[] = [];
  const placed = new Set<string>();
  let remaining = [...tables].sort((a, b) => a.name.localeCompare(b.name));
  while (remaining.length > 0) {
    const ready = remaining.filter((t) => t.references.every((name) => placed.has(name)));
    if (ready.length === 0) {
      throw new TableOrderError(`The tables ${remaining.map((t) => t.name).join(', ')} reference each other in a cycle: the copier does not know how to order them.`);
    }
    for (const table of ready) {
      ordered.push(table);
      placed.add(table.name);
    }
    remaining = remaining.filter((t) => !placed.has(t.name));
  }
  return ordered;
}

import { describe, expect, it } from 'vitest';
import type { TableInfo } from '../../src/features/database-copy/database-copy.types.js';
import { orderByForeignKeys, TableOrderError } from '../../src/features/database-copy/table-order.js';

const table = (name: string, references: string[] = []): TableInfo => ({ name, columns: [{ name: 'id', type: 'text' }], primaryKey: ['id'], references, withoutRowid: false });

describe('the copy order of tables', () => {
  it('puts every table after the tables it references, ties alphabetically', () => {
    const ordered = orderByForeignKeys([table('submissions', ['forms']), table('forms', ['accounts']), table('accounts'), table('api_keys', ['accounts']), table('zeta')]);
    expect(ordered.map((t) => t.name)).toEqual(['accounts', 'zeta', 'api_keys', 'forms', 'submissions']);
  });

  it('refuses what it cannot order, by name: a cycle, a self reference, a reference to a table not copied', () => {
    expect(() => orderByForeignKeys([table('a', ['b']), table('b', ['a']), table('c')])).toThrow(new TableOrderError('The tables a, b reference each other in a cycle: the copier does not know how to order them.'));
    expect(() => orderByForeignKeys([table('tree', ['tree'])])).toThrow(/The table tree references itself/);
    expect(() => orderByForeignKeys([table('child', ['ghost'])])).toThrow(/The table child references ghost, which is not copied/);
  });
});

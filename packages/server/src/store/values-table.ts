// Rows of parameters as a table a statement can join: `(values …) as v(name, …)`. PostgreSQL needs each
// parameter's type (an untyped parameter in VALUES is text); SQLite names VALUES columns column1, column2, …,
// so they are selected under their names.
import { type RawBuilder, sql } from 'kysely';
import { assert } from '../errors.ts';
import type { Dialect } from './db.ts';

export type ValuesColumn = readonly [name: string, postgresType: 'text' | 'bigint'];

export function valuesTable(
  rows: ReadonlyArray<readonly unknown[]>,
  columns: readonly ValuesColumn[],
  dialect: Dialect,
): RawBuilder<unknown> {
  assert(rows.length > 0, 'a VALUES table needs a row');
  assert(
    columns.every(([name]) => /^[a-z_]+$/.test(name)),
    'VALUES column names are plain identifiers',
  );
  const names = sql.raw(columns.map(([name]) => name).join(', '));
  if (dialect === 'postgres') {
    const tuple = (row: readonly unknown[]) =>
      sql`(${sql.join(columns.map(([, type], i) => sql`${row[i]}::${sql.raw(type)}`))})`;
    return sql`(values ${sql.join(rows.map(tuple))}) as v(${names})`;
  }
  const renamed = sql.raw(columns.map(([name], i) => `column${i + 1} as ${name}`).join(', '));
  const values = sql.join(rows.map((row) => sql`(${sql.join([...row])})`));
  return sql`(select ${renamed} from (values ${values})) as v`;
}

// A batch's writes as one round trip on PostgreSQL. The writer's batches write with multi-row statements, but
// each statement was still its own round trip, parse and executor start: counted, an internal payment batch sent
// twelve statements, seven of them writes. Here every write of a batch becomes one data-modifying CTE of a single
// statement (PostgreSQL runs each of them exactly once, to completion, and checks foreign keys at the end of the
// statement). On SQLite, in process, there is no round trip to save: the steps run one by one.
import { CompiledQuery, type Insertable, type Kysely } from 'kysely';
import { assert } from '../errors.ts';
import type { Dialect } from './db.ts';
import type { Database } from './schema.ts';

export interface WriteStep {
  query: CompiledQuery;
  /** The rows its RETURNING clause must give back (a guarded update that matched them all), if checked. */
  rowsExpected?: number;
  /** For the assertion's message. */
  what: string;
}

/** PostgreSQL accepts 65,535 parameters a statement; steps go in chunks well inside it. */
const PARAMETERS_PER_STATEMENT_MAX = 30_000;

export async function runWrites<DB>(trx: Kysely<DB>, steps: readonly WriteStep[], dialect: Dialect) {
  if (dialect === 'sqlite') {
    for (const step of steps) await runStep(trx, step);
    return;
  }
  for (const chunk of chunksOf(steps, PARAMETERS_PER_STATEMENT_MAX)) {
    if (chunk.length === 1) {
      await runStep(trx, chunk[0]!);
      continue;
    }
    const combined = combinedStatement(chunk);
    const result = await trx.executeQuery(combined);
    const counts = result.rows[0] as Record<string, string | number | bigint> | undefined;
    assert(counts !== undefined, 'a combined write returns its one row of counts');
    chunk.forEach((step, i) => {
      if (step.rowsExpected !== undefined) checkRows(step, Number(counts[`n${i}`]));
    });
  }
}

async function runStep<DB>(trx: Kysely<DB>, step: WriteStep): Promise<void> {
  const result = await trx.executeQuery(step.query);
  checkRows(step, result.rows.length);
}

function checkRows(step: WriteStep, rows: number): void {
  if (step.rowsExpected === undefined) return;
  assert(rows === step.rowsExpected, `${step.what}: ${rows} rows where ${step.rowsExpected} were decided`);
}

/** Pure: consecutive steps, in order, each chunk under `parametersMax` (a bigger step alone). */
export function chunksOf(steps: readonly WriteStep[], parametersMax: number): WriteStep[][] {
  const chunks: WriteStep[][] = [];
  let current: WriteStep[] = [];
  let parameters = 0;
  for (const step of steps) {
    const size = step.query.parameters.length;
    if (current.length > 0 && parameters + size > parametersMax) {
      chunks.push(current);
      current = [];
      parameters = 0;
    }
    current.push(step);
    parameters += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * `$n` → `$(n + offset)`. Kysely (and insertRows) write placeholders as `$` and digits and never put a `$` in
 * the SQL text around them. A scan rather than a replace with a callback: measured, the regex was 3 % of the
 * server's CPU under internal payments on PostgreSQL.
 */
export function shiftPlaceholders(text: string, offset: number): string {
  if (offset === 0) return text;
  let out = '';
  let from = 0;
  for (let at = text.indexOf('$'); at !== -1; at = text.indexOf('$', from)) {
    let end = at + 1;
    while (end < text.length && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) end += 1;
    assert(end > at + 1, 'a `$` in SQL text is always a placeholder');
    out += `${text.slice(from, at)}$${Number(text.slice(at + 1, end)) + offset}`;
    from = end;
  }
  return out + text.slice(from);
}

/**
 * A multi-row INSERT built directly: the batch's big inserts (a row per payment in four tables) through Kysely's
 * builder were 6 % of the server's CPU and much of its garbage on PostgreSQL. Every row must name the same
 * columns (the row builders write whole rows); values pass to the driver as they are.
 */
export function insertRows<T extends keyof Database & string>(
  dialect: Dialect,
  table: T,
  rows: readonly Insertable<Database[T]>[],
): CompiledQuery {
  assert(rows.length > 0, `an insert into ${table} needs a row`);
  const columns = Object.keys(rows[0]!);
  const parameters: unknown[] = [];
  const tuples: string[] = [];
  for (const row of rows) {
    const record = row as Record<string, unknown>;
    const placeholders: string[] = [];
    for (const column of columns) {
      const value = record[column];
      assert(value !== undefined, `${table}.${column} is missing from a row`);
      parameters.push(value);
      placeholders.push(dialect === 'postgres' ? `$${parameters.length}` : '?');
    }
    assert(Object.keys(record).length === columns.length, `a row of ${table} names other columns`);
    tuples.push(`(${placeholders.join(', ')})`);
  }
  const names = columns.map((c) => `"${c}"`).join(', ');
  return CompiledQuery.raw(`insert into "${table}" (${names}) values ${tuples.join(', ')}`, parameters);
}

/**
 * Pure: `with s0 as (…), s1 as (…) select (select count(*) from sK) as nK, …` — each step's placeholders
 * renumbered after the parameters of the steps before it; a count for each step whose rows are checked.
 */
export function combinedStatement(steps: readonly WriteStep[]): CompiledQuery {
  const parameters: unknown[] = [];
  const ctes: string[] = [];
  const counts: string[] = [];
  steps.forEach((step, i) => {
    const text = shiftPlaceholders(step.query.sql, parameters.length);
    for (const value of step.query.parameters) parameters.push(value);
    ctes.push(`s${i} as (${text})`);
    if (step.rowsExpected !== undefined) {
      assert(/\breturning\b/i.test(text), `${step.what}: a checked step needs a RETURNING clause`);
      counts.push(`(select count(*) from s${i}) as n${i}`);
    }
  });
  const select = counts.length === 0 ? 'select 1 as done' : `select ${counts.join(', ')}`;
  return CompiledQuery.raw(`with ${ctes.join(', ')} ${select}`, parameters);
}

// A wallet's kept spending windows (migration 0010) read as a column of another per-wallet read, so that a batch
// gets them without a statement of their own: measured on PostgreSQL, a statement of their own was one more
// round trip in every batch (0.51 → 0.57 statements a payment). Never a column of the locking statement: on
// PostgreSQL its subqueries read the snapshot taken before it waited for the lock, so a window moved by the
// batch it waited for would be read stale (a test of two instances racing payments caught exactly that).
// Numbers travel as text inside the JSON, so a bigint never passes through a float.
import { type RawBuilder, sql } from 'kysely';
import { assert } from '../errors.ts';
import type { Dialect } from './db.ts';

/** [[span_ms, through_ms, spent_micros, payments], …]: parsed already by pg, a string on SQLite, null for none. */
export type KeptWindowsJson = string | string[][] | null;

export interface KeptWindow {
  spanMs: number;
  throughMs: number;
  spentMicros: bigint;
  payments: number;
}

/** The column, for the wallet whose id `walletId` refers to. */
export function keptWindowsColumn(
  dialect: Dialect,
  walletId: RawBuilder<unknown>,
): RawBuilder<KeptWindowsJson> {
  if (dialect === 'postgres') {
    return sql`(select json_agg(json_build_array(sw.span_ms::text, sw.through_ms::text, sw.spent_micros::text,
      sw.payments::text)) from spending_windows sw where sw.wallet_id = ${walletId})`;
  }
  return sql`(select json_group_array(json_array(cast(sw.span_ms as text), cast(sw.through_ms as text),
    cast(sw.spent_micros as text), cast(sw.payments as text))) from spending_windows sw
    where sw.wallet_id = ${walletId})`;
}

export function parseKeptWindows(value: KeptWindowsJson): KeptWindow[] {
  if (value === null) return [];
  const tuples = typeof value === 'string' ? (JSON.parse(value) as string[][]) : value;
  return tuples.map((t) => {
    assert(t.length === 4, 'a kept window is four numbers');
    return {
      spanMs: Number(t[0]),
      throughMs: Number(t[1]),
      spentMicros: BigInt(t[2]!),
      payments: Number(t[3]),
    };
  });
}

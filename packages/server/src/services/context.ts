// What every service needs, passed explicitly: the store, the single ledger writer and the clock.
import { type Selectable, type SelectQueryBuilder, sql } from 'kysely';
import type { Clock } from '../clock.ts';
import type { BatchCommand } from '../domain/money/batch.ts';
import type { CommandAnswer } from '../domain/money/batch-state.ts';
import type { CommandWriter } from '../ledger/writer.ts';
import type { Store } from '../store/db.ts';
import type { Database } from '../store/schema.ts';

/** Where events go besides webhooks. */
export interface EventOutbox {
  /** SMTP is configured: an event that is mailed also queues one mail per member who receives it. */
  email: boolean;
}

/** The one ledger writer, typed from submit to the money executor: money commands in, their answers out. */
export type MoneyWriter = CommandWriter<BatchCommand, CommandAnswer>;

export interface ServiceContext {
  store: Store;
  writer: MoneyWriter;
  clock: Clock;
  /** Where events go besides webhooks (email, when SMTP is configured). */
  events: EventOutbox;
}

export interface Page {
  page: number;
  limit: number;
}

export const PAGE_LIMIT_MAX = 100;
export const PAGE_LIMIT_DEFAULT = 20;

export function pageOffset(page: Page): number {
  return (page.page - 1) * page.limit;
}

/** Tables listed newest first: each has these columns, and ids sort by creation within a millisecond. */
type ListedTable =
  | 'wallets'
  | 'deposits'
  | 'api_keys'
  | 'policies'
  | 'transactions'
  | 'policy_changes'
  | 'webhook_endpoints'
  | 'webhook_deliveries'
  | 'security_events';

/**
 * One page of a filtered table, newest first (created_at_ms, then id), and the total count of the filter, in
 * one query (a window count); only a page past the end needs a second one. Every list endpoint pages this way.
 */
export async function pageOf<TB extends ListedTable>(
  base: SelectQueryBuilder<Database, TB, object>,
  page: Page,
): Promise<{ rows: Selectable<Database[TB]>[]; total: number }> {
  const counted = await base
    .selectAll()
    .select(sql<bigint>`count(*) over ()`.as('total_count'))
    .orderBy(sql.ref('created_at_ms'), 'desc')
    .orderBy(sql.ref('id'), 'desc')
    .limit(page.limit)
    .offset(pageOffset(page))
    .execute();
  const rows = counted.map(({ total_count: _, ...row }) => row) as unknown as Selectable<Database[TB]>[];
  const first = counted[0] as { total_count: bigint } | undefined;
  if (first !== undefined) return { rows, total: Number(first.total_count) };
  if (pageOffset(page) === 0) return { rows, total: 0 };
  const count = await base.select((eb) => eb.fn.countAll<bigint>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(count.n) };
}

// What every service needs, passed explicitly: the store, the single ledger writer and the clock.
import type { Clock } from '../clock.ts';
import type { LedgerWriter } from '../ledger/writer.ts';
import type { Store } from '../store/db.ts';

export interface ServiceContext {
  store: Store;
  writer: LedgerWriter;
  clock: Clock;
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

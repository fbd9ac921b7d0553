// The rolling-window totals a batch's window policies need (spend_cap_window, tx_count_cap, recipient_cap): sums
// and counts per wallet from its kept spending windows (spending-windows.ts), and one query per recipient-cap
// window (sum per wallet and recipient, for the batch's recipients only, from the (wallet_id, created_at_ms,
// status) index). Windows end at the batch's first command: a later command of the same batch counts a payment
// that left the window in the milliseconds between them, which can only deny early, never let a budget be passed.
import type { Kysely } from 'kysely';
import { emptyWindows, periodKey, recipientKey, type WindowTotals } from '../../domain/money/batch-state.ts';
import { type Period, periodOf } from '../../domain/policies/calendar-period.ts';
import { type ActivePolicy, WINDOWS, type WindowName } from '../../domain/policies/policies.ts';
import { assert } from '../../errors.ts';
import type { Database } from '../../store/schema.ts';
import { SPENDING_STATUSES } from '../wallets/transactions.ts';
import type { SpendingWindows } from './spending-windows.ts';

interface Needs {
  /** window → wallets whose spending or count in it a policy checks. */
  totals: Map<WindowName, Set<string>>;
  /** window → wallets with a recipient cap over it. */
  recipients: Map<WindowName, Set<string>>;
  /** periodKey → the period and zone, and the wallets with a spend_cap_period over it. */
  periods: Map<string, { period: Period; timezone: string; wallets: Set<string> }>;
  /** window → wallets with an auto_freeze policy counting denials in it. */
  denials: Map<WindowName, Set<string>>;
}

/** Pure: which windows each wallet's policies name. */
export function windowNeeds(policiesByWallet: ReadonlyMap<string, readonly ActivePolicy[]>): Needs {
  const needs: Needs = { totals: new Map(), recipients: new Map(), periods: new Map(), denials: new Map() };
  const add = (map: Map<WindowName, Set<string>>, window: WindowName, walletId: string) =>
    map.set(window, (map.get(window) ?? new Set()).add(walletId));
  for (const [walletId, policies] of policiesByWallet) {
    for (const { rule } of policies) {
      if (rule.type === 'spend_cap_window' || rule.type === 'tx_count_cap')
        add(needs.totals, rule.window, walletId);
      if (rule.type === 'recipient_cap') add(needs.recipients, rule.window, walletId);
      if (rule.type === 'auto_freeze') add(needs.denials, rule.window, walletId);
      if (rule.type === 'spend_cap_period') {
        const key = periodKey(rule.period, rule.timezone);
        const entry = needs.periods.get(key) ?? {
          period: rule.period,
          timezone: rule.timezone,
          wallets: new Set(),
        };
        needs.periods.set(key, { ...entry, wallets: entry.wallets.add(walletId) });
      }
    }
  }
  return needs;
}

export async function loadWindowTotals(
  trx: Kysely<Database>,
  policiesByWallet: ReadonlyMap<string, readonly ActivePolicy[]>,
  spending: SpendingWindows,
  recipientsByWallet: ReadonlyMap<string, ReadonlySet<string>>,
  nowMs: number,
): Promise<Map<string, WindowTotals>> {
  const byWallet = new Map<string, WindowTotals>();
  const of = (walletId: string) =>
    byWallet.get(walletId) ?? byWallet.set(walletId, emptyWindows()).get(walletId)!;
  const needs = windowNeeds(policiesByWallet);
  for (const [window, wallets] of needs.totals) {
    for (const walletId of wallets) {
      const total = spending.get(walletId)?.get(WINDOWS[window]);
      assert(total !== undefined, `the ${window} window of ${walletId} was not loaded`);
      of(walletId).spent.set(window, total.spentMicros);
      of(walletId).count.set(window, total.payments);
    }
  }
  for (const [window, wallets] of needs.recipients) {
    await loadRecipientTotals(trx, { window, wallets, recipientsByWallet, nowMs, of });
  }
  for (const [window, wallets] of needs.denials) {
    const counts = await denialsSince(trx, wallets, nowMs - WINDOWS[window]);
    for (const walletId of wallets) of(walletId).denials.set(window, counts.get(walletId) ?? 0);
  }
  for (const [key, totals] of await spentInPeriods(trx, needs.periods, nowMs)) {
    for (const walletId of needs.periods.get(key)!.wallets) {
      of(walletId).periods.set(key, totals.get(walletId) ?? 0n);
    }
  }
  return byWallet;
}

/**
 * periodKey → each wallet's spending in the current calendar period: one query per distinct period and zone
 * (the ledger batch's calendar budgets and check_balance's room read the same sums).
 */
export async function spentInPeriods(
  db: Kysely<Database>,
  periods: Needs['periods'],
  nowMs: number,
): Promise<Map<string, Map<string, bigint>>> {
  const spent = new Map<string, Map<string, bigint>>();
  for (const [key, need] of periods) {
    spent.set(key, await spentSince(db, need.wallets, periodOf(nowMs, need.period, need.timezone).startMs));
  }
  return spent;
}

/** The denials of each wallet after `sinceMs` (auto_freeze), under the batch's wallet locks. */
async function denialsSince(
  db: Kysely<Database>,
  wallets: ReadonlySet<string>,
  sinceMs: number,
): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('payment_denials')
    .select((eb) => ['wallet_id', eb.fn.countAll<bigint>().as('n')])
    .where('wallet_id', 'in', [...wallets])
    .where('at_ms', '>', BigInt(sinceMs))
    .groupBy('wallet_id')
    .execute();
  return new Map(rows.map((r) => [r.wallet_id, Number(r.n)]));
}

/**
 * Spending (completed, processing and held payments) of each wallet since `startMs`: a calendar period's, read
 * from the (wallet_id, created_at_ms, status) index under the batch's wallet locks, so it is exact.
 */
export async function spentSince(
  db: Kysely<Database>,
  wallets: ReadonlySet<string>,
  startMs: number,
): Promise<Map<string, bigint>> {
  const rows = await db
    .selectFrom('transactions')
    .select((eb) => ['wallet_id', eb.fn.sum<bigint>('amount_micros').as('total')])
    .where('wallet_id', 'in', [...wallets])
    .where('type', '=', 'payment')
    .where('status', 'in', SPENDING_STATUSES)
    .where('created_at_ms', '>=', BigInt(startMs))
    .groupBy('wallet_id')
    .execute();
  return new Map(rows.map((r) => [r.wallet_id, BigInt(r.total)]));
}

async function loadRecipientTotals(
  trx: Kysely<Database>,
  input: {
    window: WindowName;
    wallets: ReadonlySet<string>;
    recipientsByWallet: ReadonlyMap<string, ReadonlySet<string>>;
    nowMs: number;
    of: (walletId: string) => WindowTotals;
  },
): Promise<void> {
  const recipients = new Set<string>();
  for (const walletId of input.wallets) {
    for (const address of input.recipientsByWallet.get(walletId) ?? []) {
      recipients.add(address);
      input.of(walletId).toRecipient.set(recipientKey(input.window, address), 0n);
    }
  }
  if (recipients.size === 0) return;
  const rows = await trx
    .selectFrom('transactions')
    .select((eb) => ['wallet_id', 'to_address', eb.fn.sum<bigint>('amount_micros').as('total')])
    .where('wallet_id', 'in', [...input.wallets])
    .where('to_address', 'in', [...recipients])
    .where('type', '=', 'payment')
    .where('status', 'in', SPENDING_STATUSES)
    .where('created_at_ms', '>', BigInt(input.nowMs - WINDOWS[input.window]))
    .groupBy(['wallet_id', 'to_address'])
    .execute();
  for (const r of rows) {
    const key = recipientKey(input.window, r.to_address!);
    if (input.of(r.wallet_id).toRecipient.has(key))
      input.of(r.wallet_id).toRecipient.set(key, BigInt(r.total));
  }
}

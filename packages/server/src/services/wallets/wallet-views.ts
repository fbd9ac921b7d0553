// Wallets as the API shows them. An agent wallet carries its balances, remaining spending caps and the count
// of payments awaiting approval, wherever it appears (get, list, fund and withdraw answers).
import { type Kysely, sql } from 'kysely';
import { isoFromMs } from '../../clock.ts';
import { toChecksumAddress } from '../../domain/address.ts';
import { walletAccountIds } from '../../domain/money/accounts.ts';
import type { WalletState } from '../../domain/money/batch-state.ts';
import { formatMicros } from '../../domain/money.ts';
import { type ActivePolicy, capsRemaining, DAY_MS, type PolicyType } from '../../domain/policies/policies.ts';
import { assert } from '../../errors.ts';
import { readBalances } from '../../ledger/ledger.ts';
import { isPending, notCompleted } from '../../store/partial-index.ts';
import type { Database } from '../../store/schema.ts';
import { windowSpentSql } from '../money/spending-windows.ts';
import { ruleOf } from '../policies/policies.ts';
import type { WalletRow } from './wallet-rows.ts';

export interface AgentWalletView {
  id: string;
  label: string | null;
  address: string;
  balance: string;
  heldBalance: string;
  currency: 'USDC';
  frozen: boolean;
  dailyCapRemaining: string | null;
  totalCapRemaining: string | null;
  /** Payments awaiting the owner's decision: lets the dashboard badge approvals from the wallet list alone. */
  pendingApprovals: number;
  createdAt: string;
  updatedAt: string;
}

export async function agentWalletView(
  db: Kysely<Database>,
  row: WalletRow,
  nowMs: number,
): Promise<AgentWalletView> {
  const { items } = await agentWalletViews(db, [row], nowMs, null);
  return items[0]!;
}

/** An agent wallet as the API shows it, from what is known of it (a page's reads, or a batch's state). */
export function agentWalletViewOf(
  wallet: Pick<
    WalletState,
    | 'id'
    | 'label'
    | 'address'
    | 'frozen'
    | 'availableMicros'
    | 'heldMicros'
    | 'policies'
    | 'spentMicros'
    | 'spent24hMicros'
    | 'pendingCount'
    | 'createdAtMs'
    | 'updatedAtMs'
  >,
): AgentWalletView {
  const remaining = capsRemaining(wallet.policies, {
    last24hMicros: wallet.spent24hMicros,
    allTimeMicros: wallet.spentMicros,
  });
  return {
    id: wallet.id,
    label: wallet.label,
    address: toChecksumAddress(wallet.address),
    balance: formatMicros(wallet.availableMicros),
    heldBalance: formatMicros(wallet.heldMicros),
    currency: 'USDC',
    frozen: wallet.frozen,
    dailyCapRemaining:
      remaining.dailyCapRemaining === null ? null : formatMicros(remaining.dailyCapRemaining),
    totalCapRemaining:
      remaining.totalCapRemaining === null ? null : formatMicros(remaining.totalCapRemaining),
    pendingApprovals: wallet.pendingCount,
    createdAt: isoFromMs(wallet.createdAtMs),
    updatedAt: isoFromMs(wallet.updatedAtMs),
  };
}

/** Wallets listed per page at most: bounds the IN lists of the set-based reads below. */
export const WALLET_VIEWS_MAX = 100;

/**
 * Views of many wallets in three queries, whatever their number (a page of 100 used to take 3-5 per wallet):
 * balances, active caps, and one statement of per-wallet aggregates (pending approvals, the last 24 hours'
 * spending) which, given `pendingOfUser`, also counts that user's pending approvals on every wallet.
 */
export async function agentWalletViews(
  db: Kysely<Database>,
  rows: readonly WalletRow[],
  nowMs: number,
  pendingOfUser: string | null,
): Promise<{ items: AgentWalletView[]; pendingOfUser: number }> {
  assert(rows.length <= WALLET_VIEWS_MAX, `at most ${WALLET_VIEWS_MAX} wallet views at once`);
  const ids = rows.map((row) => row.id);
  if (ids.length === 0 && pendingOfUser === null) return { items: [], pendingOfUser: 0 };
  const [balances, caps, aggregates] = await Promise.all([
    balancesOf(db, ids),
    capPoliciesOf(db, ids),
    aggregatesOf(db, ids, nowMs, pendingOfUser),
  ]);
  const items = rows.map((row) =>
    agentWalletViewOf({
      id: row.id,
      label: row.label,
      address: row.address,
      frozen: row.frozen_at_ms !== null,
      ...(balances.get(row.id) ?? { availableMicros: 0n, heldMicros: 0n }),
      policies: caps.get(row.id) ?? [],
      spentMicros: row.spent_micros,
      spent24hMicros: aggregates.spent24h.get(row.id) ?? 0n,
      pendingCount: aggregates.pending.get(row.id) ?? 0,
      createdAtMs: Number(row.created_at_ms),
      updatedAtMs: Number(row.updated_at_ms),
    }),
  );
  return { items, pendingOfUser: aggregates.pendingOfUser };
}

async function balancesOf(db: Kysely<Database>, walletIds: string[]) {
  const byWallet = new Map<string, { availableMicros: bigint; heldMicros: bigint }>();
  if (walletIds.length === 0) return byWallet;
  const rows = await db
    .selectFrom('accounts')
    .select(['wallet_id', 'kind', 'balance_micros'])
    .where('id', 'in', walletAccountIds(walletIds))
    .execute();
  for (const row of rows) {
    // The pair of the write-side guard: balances read back are never negative.
    assert(row.balance_micros >= 0n, `account of ${row.wallet_id} is negative`);
    const entry = byWallet.get(row.wallet_id!) ?? { availableMicros: 0n, heldMicros: 0n };
    if (row.kind === 'available') entry.availableMicros = row.balance_micros;
    if (row.kind === 'hold') entry.heldMicros = row.balance_micros;
    byWallet.set(row.wallet_id!, entry);
  }
  return byWallet;
}

async function capPoliciesOf(db: Kysely<Database>, walletIds: string[]) {
  const byWallet = new Map<string, ActivePolicy[]>();
  if (walletIds.length === 0) return byWallet;
  const rows = await db
    .selectFrom('policies')
    .select(['id', 'wallet_id', 'type', 'params_json'])
    .where('wallet_id', 'in', walletIds)
    .where('active', '=', 1n)
    .where('type', 'in', ['spend_cap_daily', 'spend_cap_total'])
    .execute();
  for (const row of rows) {
    const list = byWallet.get(row.wallet_id) ?? [];
    list.push({ id: row.id, rule: ruleOf(row.type as PolicyType, row.params_json) });
    byWallet.set(row.wallet_id, list);
  }
  return byWallet;
}

/**
 * One statement, each branch on its own index: pending per wallet, the last 24 hours' spending of the wallets
 * with a daily cap (no other wallet pays for that sum), and the user's pending approvals.
 */
async function aggregatesOf(
  db: Kysely<Database>,
  walletIds: string[],
  nowMs: number,
  pendingOfUser: string | null,
) {
  const ids = walletIds.length === 0 ? [''] : walletIds;
  const userBranch =
    pendingOfUser === null
      ? sql``
      : sql`union all select '*', 'pending', count(*) from transactions
          where user_id = ${pendingOfUser} and ${isPending}`;
  const result = await sql<{ wallet_id: string; kind: string; n: bigint | string | number }>`
    select wallet_id, 'pending' as kind, count(*) as n from transactions
      where wallet_id in (${sql.join(ids)}) and status = 'pending' and ${notCompleted} group by wallet_id
    union all
    select p.wallet_id, 'spent24h', ${windowSpentSql(sql`p.wallet_id`, DAY_MS, nowMs)} from policies p
      where p.wallet_id in (${sql.join(ids)}) and p.active = 1 and p.type = 'spend_cap_daily'
    ${userBranch}`.execute(db);
  const pending = new Map<string, number>();
  const spent24h = new Map<string, bigint>();
  let userPending = 0;
  for (const row of result.rows) {
    if (row.wallet_id === '*') userPending = Number(row.n);
    else if (row.kind === 'pending') pending.set(row.wallet_id, Number(row.n));
    else spent24h.set(row.wallet_id, BigInt(row.n));
  }
  return { pending, spent24h, pendingOfUser: userPending };
}

export async function masterWalletView(db: Kysely<Database>, row: WalletRow) {
  const balances = await readBalances(db, row.id);
  return {
    id: row.id,
    address: toChecksumAddress(row.address),
    balance: formatMicros(balances.availableMicros),
    currency: 'USDC' as const,
    createdAt: isoFromMs(row.created_at_ms),
  };
}

// The overview table's numbers: today's use of a wallet's daily cap, and the sort orders. Pure: unit-tested.
import type { AgentWallet, Policy } from '@agent-wallet/sdk';
import { walletName } from '../format.ts';
import { formatAmount, formatUsdc, fromMicros, smallest, toMicros } from '../money.ts';

export type DailyUse =
  | { kind: 'none' }
  /** A daily cap exists but its limit is not known here (policies not loaded): the room left. */
  | { kind: 'remaining'; remaining: string }
  | { kind: 'cap'; used: bigint; limit: bigint; percent: number; usedText: string; limitText: string };

/** How much of its daily cap (the tightest, over the last 24 hours) a wallet has used. */
export function dailyUse(
  wallet: Pick<AgentWallet, 'dailyCapRemaining'>,
  policies: readonly Policy[] | undefined,
): DailyUse {
  const remaining = wallet.dailyCapRemaining;
  if (remaining === null) return { kind: 'none' };
  const limits = (policies ?? [])
    .filter((p) => p.active && p.type === 'spend_cap_daily')
    .map((p) => (p.params as { limit?: unknown }).limit)
    .filter((limit): limit is string => typeof limit === 'string' && /^[0-9]+(\.[0-9]{1,6})?$/.test(limit))
    .map(toMicros);
  if (limits.length === 0) return { kind: 'remaining', remaining };
  const limit = smallest(limits);
  const room = toMicros(remaining);
  const used = limit > room ? limit - room : 0n;
  const percent = limit === 0n ? 100 : Math.min(100, Number((used * 1000n) / limit) / 10);
  const usedText = formatAmount(fromMicros(used));
  return { kind: 'cap', used, limit, percent, usedText, limitText: formatUsdc(fromMicros(limit)) };
}

export type SortKey = 'name' | 'balance' | 'today' | 'pending';

function todayRank(use: DailyUse | undefined): number {
  if (use === undefined || use.kind === 'none') return -1;
  return use.kind === 'cap' ? use.percent : 0;
}

/** Wallets in the chosen order; ties keep the server's order (newest first). */
export function sortWallets(
  wallets: readonly AgentWallet[],
  uses: ReadonlyMap<string, DailyUse>,
  key: SortKey,
  descending: boolean,
): AgentWallet[] {
  const compare = (a: AgentWallet, b: AgentWallet): number => {
    switch (key) {
      case 'name':
        return walletName(a.label).localeCompare(walletName(b.label), undefined, { sensitivity: 'base' });
      case 'balance': {
        const x = toMicros(a.balance);
        const y = toMicros(b.balance);
        return x === y ? 0 : x < y ? -1 : 1;
      }
      case 'today':
        return todayRank(uses.get(a.id)) - todayRank(uses.get(b.id));
      case 'pending':
        return a.pendingApprovals - b.pendingApprovals;
    }
  };
  return wallets
    .map((wallet, index) => ({ wallet, index }))
    .sort((a, b) => (descending ? -1 : 1) * compare(a.wallet, b.wallet) || a.index - b.index)
    .map(({ wallet }) => wallet);
}

// Wallets as the API shows them. An agent wallet carries its balances, remaining spending caps and the count
// of payments awaiting approval, wherever it appears (get, list, fund and withdraw answers).
import type { Kysely } from 'kysely';
import { isoFromMs } from '../clock.ts';
import { toChecksumAddress } from '../domain/address.ts';
import { formatMicros } from '../domain/money.ts';
import { readBalances } from '../ledger/ledger.ts';
import type { Database } from '../store/schema.ts';
import { remainingCaps } from './policies.ts';
import { countPending } from './transactions.ts';
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
  const balances = await readBalances(db, row.id);
  const caps = await remainingCaps(db, row.id, nowMs);
  return {
    id: row.id,
    label: row.label,
    address: toChecksumAddress(row.address),
    balance: formatMicros(balances.availableMicros),
    heldBalance: formatMicros(balances.heldMicros),
    currency: 'USDC',
    frozen: row.frozen_at_ms !== null,
    ...caps,
    pendingApprovals: await countPending(db, row.id),
    createdAt: isoFromMs(row.created_at_ms),
    updatedAt: isoFromMs(row.updated_at_ms),
  };
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

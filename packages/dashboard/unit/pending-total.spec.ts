import type { AgentWallet, Transaction } from '@agent-wallet/sdk';
import { describe, expect, it } from 'vitest';
import {
  type ActivityData,
  addTransaction,
  applyDecision,
  applyWallet,
  K,
  newQueryClient,
  POLL_INTERVAL_MS,
  pendingTotal,
  pollDelay,
  type WalletList,
} from '../src/queries.ts';

const wallet = (id: string, pendingApprovals: number) => ({ id, pendingApprovals }) as unknown as AgentWallet;
const tx = (id: string, status: string) => ({ id, walletId: 'w', status }) as unknown as Transaction;

describe('the approvals badge', () => {
  it("uses the server's total across all wallets, not only the loaded ones", () => {
    expect(pendingTotal({ items: [wallet('a', 1)], total: 400, pendingApprovals: 7 })).toBe(7);
    expect(pendingTotal({ items: [wallet('a', 1), wallet('b', 2)], total: 2 })).toBe(3);
    expect(pendingTotal(undefined)).toBe(0);
  });

  it('moves with a wallet answer until the next poll', () => {
    const qc = newQueryClient();
    qc.setQueryData<WalletList>(K.agentWallets, {
      items: [wallet('a', 2), wallet('b', 1)],
      total: 2,
      pendingApprovals: 3,
    });
    applyWallet(qc, { id: 'a', pendingApprovals: 1 });
    expect(pendingTotal(qc.getQueryData<WalletList>(K.agentWallets))).toBe(2);
    applyWallet(qc, { id: 'b', label: 'renamed' } as Partial<AgentWallet> & { id: string });
    expect(pendingTotal(qc.getQueryData<WalletList>(K.agentWallets))).toBe(2);
  });
});

describe('mutation answers written into the query cache', () => {
  const page = (transactions: Transaction[]) => ({
    transactions,
    total: transactions.length,
    page: 1,
    limit: 100,
  });

  it('keeps the age and staleness of what they patch', async () => {
    const qc = newQueryClient();
    qc.setQueryData<ActivityData>(
      K.activity('w'),
      { pages: [page([tx('t1', 'completed')])], pageParams: [1] },
      {
        updatedAt: 1000,
      },
    );
    await qc.invalidateQueries({ queryKey: K.activity('w'), refetchType: 'none' });
    addTransaction(qc, tx('t2', 'completed'));
    const state = qc.getQueryState<ActivityData>(K.activity('w'));
    expect(state?.data?.pages[0]?.transactions.map((t) => t.id)).toEqual(['t2', 't1']);
    expect(state?.data?.pages[0]?.total).toBe(2);
    expect(state?.dataUpdatedAt).toBe(1000);
    expect(state?.isInvalidated).toBe(true);
  });

  it('replaces a decided payment and takes it off the pending list', () => {
    const qc = newQueryClient();
    qc.setQueryData<ActivityData>(K.activity('w'), { pages: [page([tx('t1', 'pending')])], pageParams: [1] });
    qc.setQueryData(K.pending('w'), page([tx('t1', 'pending'), tx('t3', 'pending')]));
    applyDecision(qc, tx('t1', 'completed'));
    expect(qc.getQueryData<ActivityData>(K.activity('w'))?.pages[0]?.transactions[0]?.status).toBe(
      'completed',
    );
    expect(qc.getQueryData<{ total: number }>(K.pending('w'))?.total).toBe(1);
  });
});

describe('the poll', () => {
  it('waits for the bucket to refill when few requests are left in it', () => {
    expect(pollDelay(undefined, 0)).toBe(POLL_INTERVAL_MS);
    expect(pollDelay({ limit: 30, remaining: 20, resetAt: 50_000 }, 0)).toBe(POLL_INTERVAL_MS);
    expect(pollDelay({ limit: 30, remaining: 2, resetAt: 50_000 }, 0)).toBe(50_500);
    expect(pollDelay({ limit: 30, remaining: 2, resetAt: 5_000 }, 0)).toBe(POLL_INTERVAL_MS);
  });
});

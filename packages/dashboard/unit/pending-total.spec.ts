import { describe, expect, it } from 'vitest';
import type { AgentWallet } from '../src/api/types.ts';
import { Cache } from '../src/cache.ts';
import { applyWallet, K, pendingTotal, type WalletList } from '../src/data.ts';

const wallet = (id: string, pendingApprovals: number) => ({ id, pendingApprovals }) as unknown as AgentWallet;

describe('the approvals badge', () => {
  it("uses the server's total across all wallets, not only the loaded ones", () => {
    expect(pendingTotal({ items: [wallet('a', 1)], total: 400, pendingApprovals: 7 })).toBe(7);
    expect(pendingTotal({ items: [wallet('a', 1), wallet('b', 2)], total: 2 })).toBe(3);
    expect(pendingTotal(undefined)).toBe(0);
  });

  it('moves with a wallet answer until the next poll', async () => {
    const cache = new Cache();
    await cache.ensure<WalletList>(
      K.agentWallets,
      async () => ({ items: [wallet('a', 2), wallet('b', 1)], total: 2, pendingApprovals: 3 }),
      60_000,
    );
    applyWallet(cache, { id: 'a', pendingApprovals: 1 });
    expect(pendingTotal(cache.peek<WalletList>(K.agentWallets).data)).toBe(2);
    applyWallet(cache, { id: 'b', label: 'renamed' } as Partial<AgentWallet> & { id: string });
    expect(pendingTotal(cache.peek<WalletList>(K.agentWallets).data)).toBe(2);
  });
});

import { z } from 'zod';
import { toChecksumAddress } from '../domain/address.ts';
import { formatMicros } from '../domain/money.ts';
import { success } from '../domain/outcome.ts';
import { readBalances } from '../ledger/ledger.ts';
import { remainingCaps } from '../services/policies.ts';
import type { ToolDefinition } from './registry.ts';

export const checkBalanceTool: ToolDefinition<Record<string, never>> = {
  name: 'check_balance',
  scope: 'read',
  description:
    'Balance of this agent wallet: what can be spent now (balance), what is held for pending approvals ' +
    '(heldBalance), whether the wallet is frozen, and how much room the daily and total spending caps leave ' +
    '(null when no such cap is set). Amounts are USDC decimal strings.',
  input: z.strictObject({}),
  async run({ key, services }) {
    const db = services.store.db;
    const wallet = await db
      .selectFrom('wallets')
      .selectAll()
      .where('id', '=', key.walletId)
      .executeTakeFirstOrThrow();
    const balances = await readBalances(db, wallet.id);
    const caps = await remainingCaps(db, wallet.id, services.clock.nowMs());
    return success({
      walletId: wallet.id,
      address: toChecksumAddress(wallet.address),
      balance: formatMicros(balances.availableMicros),
      heldBalance: formatMicros(balances.heldMicros),
      currency: 'USDC',
      frozen: wallet.frozen_at_ms !== null,
      ...caps,
    });
  },
};

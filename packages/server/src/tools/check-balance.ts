import { z } from 'zod';
import { toChecksumAddress } from '../domain/address.ts';
import { formatMicros } from '../domain/money.ts';
import { success } from '../domain/outcome.ts';
import { assert } from '../errors.ts';
import type { ToolDefinition } from './definition.ts';
import { checkBalanceOutput } from './outputs.ts';

export const checkBalanceTool: ToolDefinition<Record<string, never>> = {
  name: 'check_balance',
  scope: 'read',
  description:
    'Balance of this agent wallet: what can be spent now (balance), what is held for pending approvals ' +
    '(heldBalance), whether the wallet is frozen, and how much room the daily and total spending caps leave ' +
    '(null when no such cap is set), and, when a calendar budget is set, the room under the tightest one and when it resets. Amounts are USDC decimal strings.',
  input: z.strictObject({}),
  output: checkBalanceOutput,
  async run({ key, services }) {
    const view = await services.balances.read(key.walletId);
    // The key was authenticated against its wallet a moment ago, and wallets are never deleted.
    assert(view !== undefined, `wallet ${key.walletId} of an authenticated key is missing`);
    return success({
      walletId: view.walletId,
      address: toChecksumAddress(view.address),
      balance: formatMicros(view.availableMicros),
      heldBalance: formatMicros(view.heldMicros),
      currency: 'USDC',
      frozen: view.frozen,
      dailyCapRemaining: view.dailyCapRemaining,
      totalCapRemaining: view.totalCapRemaining,
      ...view.periodCap,
    });
  },
};

// The evm rail's services, loaded only on `evm` (services/index.ts imports this module when it opens that rail:
// the chain code, viem, is ~36 MB of resident memory): the rail's duties with the books they write in, x402,
// and the deposits still confirming.
import { type ChainDuties, chainDuties, type EvmRail } from '../../chain/rail.ts';
import type { Page, ServiceContext } from '../context.ts';
import { settleX402Due } from '../x402/settle.ts';
import { createX402Service, type X402Service } from '../x402/x402.ts';
import { type PendingDepositView, pendingDeposits } from './pending-deposits.ts';
import { railBooks } from './rail-books.ts';

export { openEvmRail } from '../../chain/rail.ts';

export interface EvmServices {
  rail: EvmRail;
  duties: ChainDuties & {
    /** Ends x402 payments the chain has decided (settled, or expired unused). */
    settleX402(): Promise<unknown>;
  };
  /** x402_fetch and x402_sign: only on the evm rail. */
  x402: X402Service;
  pendingDeposits(userId: string, page: Page): Promise<{ items: PendingDepositView[]; total: number }>;
}

export function evmServices(
  ctx: ServiceContext,
  rail: EvmRail,
  options: { warn: (message: string) => void; x402AllowPrivate: boolean },
): EvmServices {
  return {
    rail,
    duties: {
      ...chainDuties({ ...ctx, books: railBooks }, rail, options.warn),
      settleX402: () => settleX402Due({ ctx, rail, allowPrivate: false }),
    },
    x402: createX402Service({ ctx, rail, allowPrivate: options.x402AllowPrivate }),
    pendingDeposits: (userId, page) =>
      pendingDeposits(ctx.store, rail.client, rail.config.confirmations, { userId, page }),
  };
}

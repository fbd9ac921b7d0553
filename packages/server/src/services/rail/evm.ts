// The evm rail's services, loaded only on `evm` (services/index.ts imports this module when it opens that rail:
// the chain code, viem, is ~36 MB of resident memory): the rail's duties with the books they write in, x402,
// and the deposits still confirming.

import type { requestView } from '../../chain/bounded/owners-requests.ts';
import { type ChainDuties, chainDuties, type EvmRail } from '../../chain/rail.ts';
import { AppError, notFound } from '../../errors.ts';
import { alertTreasuryOnce } from '../alerts/treasury-alerts.ts';
import type { Page, ServiceContext } from '../context.ts';
import { settleX402Due } from '../x402/settle.ts';
import { createX402Service, type X402Service } from '../x402/x402.ts';
import { type PendingDepositView, pendingDeposits } from './pending-deposits.ts';
import { railBooks } from './rail-books.ts';

export { openEvmRail } from '../../chain/rail.ts';

/** Bounded mode: the payments that wait for the owners' signatures, and the signatures handed in. */
export interface OwnersGate {
  /** Whether a payout to this address must wait for the owners: more than the float and the allowance can pay. */
  needsOwners(toAddress: string, amountMicros: bigint): Promise<boolean>;
  /** The request the owners sign for this payment's payout (created once), or null when none waits. */
  requestFor(transactionId: string): Promise<OwnersRequestView | null>;
  /** Hands in one owner's signature for a request of this user's payment (by its id or the request's). */
  sign(userId: string, id: string, signature: `0x${string}`): Promise<OwnersRequestView>;
  /** The owners' request that revokes the service's delegation: the waiting one, else a new one. */
  revoke(): Promise<OwnersRequestView>;
}

export type OwnersRequestView = ReturnType<typeof requestView>;

export interface EvmServices {
  rail: EvmRail;
  /** null in hot mode. */
  owners: OwnersGate | null;
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
  const chain = chainDuties({ ...ctx, books: railBooks }, rail, options.warn);
  return {
    rail,
    duties: {
      ...chain,
      async send() {
        const round = await chain.send();
        // The round's fresh reading of the treasury judges the treasury alerts: by the sender (one instance).
        if (round.leased) await alertTreasuryOnce(ctx, rail.treasury.latest()?.atRiskMicros ?? null);
        return round;
      },
      settleX402: () => settleX402Due({ ctx, rail, allowPrivate: false }),
    },
    x402: createX402Service({ ctx, rail, allowPrivate: options.x402AllowPrivate }),
    owners: rail.bounded === null ? null : ownersGate(ctx, rail),
    pendingDeposits: (userId, page) =>
      pendingDeposits(ctx.store, rail.client, rail.config.confirmations, { userId, page }),
  };
}

/** The framework's ABIs and the owners' code: loaded in bounded mode only, when first needed (a hot rail never). */
const ownersCode = () => import('../../chain/bounded/owners-requests.ts');
const revokeCode = () => import('../../chain/bounded/owners-revoke.ts');

function ownersGate(ctx: ServiceContext, rail: EvmRail): OwnersGate {
  const deps = {
    ctx: { ...ctx, books: railBooks },
    client: rail.client,
    config: rail.config,
    keys: rail.keys,
  };
  return {
    async needsOwners(toAddress, amountMicros) {
      // A wallet of this service is paid on the internal ledger: nothing leaves the chain accounts.
      const internal = await ctx.store.db
        .selectFrom('wallets')
        .select('id')
        .where('address', '=', toAddress)
        .executeTakeFirst();
      if (internal !== undefined) return false;
      const reading = await rail.treasury.read();
      if (reading === null || reading.bounded === null) return false;
      return reading.usdcMicros + reading.bounded.refillableMicros < amountMicros;
    },
    requestFor: async (transactionId) => (await ownersCode()).ownersRequestFor(deps, transactionId),
    async sign(userId, id, signature) {
      const { addOwnerSignature, findOwnersRequest, SignatureRefused } = await ownersCode();
      const row = await findOwnersRequest(deps, id);
      if (row === undefined || !(await mayHandIn(ctx, userId, row))) throw notFound('signature request');
      try {
        return await addOwnerSignature(deps, id, signature);
      } catch (error) {
        if (!(error instanceof SignatureRefused)) throw error;
        if (/signed already/.test(error.message)) throw new AppError('INVALID_STATE', error.message);
        throw new AppError('VALIDATION_ERROR', `signature: ${error.message}`);
      }
    },
    async revoke() {
      const { revokeRequest, NothingToRevoke } = await revokeCode();
      try {
        return await revokeRequest(deps);
      } catch (error) {
        if (error instanceof NothingToRevoke) throw new AppError('INVALID_STATE', error.message);
        throw error;
      }
    },
  };
}

/**
 * Whether this user may hand in signatures for the request: one paying their own payment (another organization's
 * is not there for them), or the revocation of the service's delegation — the deployment's treasury, which every
 * owner may ask the owners' keys to close (only those keys' signatures count).
 */
async function mayHandIn(
  ctx: ServiceContext,
  userId: string,
  row: { kind: string; transaction_id: string | null },
) {
  if (row.kind === 'revoke') return true;
  if (row.transaction_id === null) return false;
  const owned = await ctx.store.db
    .selectFrom('transactions')
    .select('id')
    .where('id', '=', row.transaction_id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return owned !== undefined;
}

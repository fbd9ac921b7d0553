// The evm rail's services, loaded only on `evm` (services/index.ts imports this module when it opens that rail:
// the chain code, viem, is ~36 MB of resident memory): the rail's duties with the books they write in, x402,
// and the deposits still confirming.

import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type {
  listOwnersRequests,
  OwnersDeps,
  OwnersListQuery,
  requestView,
} from '../../chain/bounded/owners-requests.ts';
import { type ChainDuties, chainDuties, type EvmRail } from '../../chain/rail.ts';
import type { OwnersWait } from '../../domain/money/batch-state.ts';
import { treasuryCover } from '../../domain/money/treasury-cover.ts';
import { AppError, notFound } from '../../errors.ts';
import { alertTreasuryOnce } from '../alerts/treasury-alerts.ts';
import type { Page, ServiceContext } from '../context.ts';
import type { RelyingParty } from '../identity/passkey-rows.ts';
import { settleX402Due } from '../x402/settle.ts';
import { createX402Service, type X402Service } from '../x402/x402.ts';
import { type PendingDepositView, pendingDeposits } from './pending-deposits.ts';
import { railBooks } from './rail-books.ts';
import { passkeyRequestOptions, signWithPasskey } from './treasury-passkey.ts';

export { openEvmRail } from '../../chain/rail.ts';

/** Bounded mode: the payments that wait for the owners' signatures, and the signatures handed in. */
export interface OwnersGate {
  /** Whether a payout to this address must wait for the owners: more than the float and the allowance can pay. */
  needsOwners(toAddress: string, amountMicros: bigint): Promise<boolean>;
  /** The request the owners sign for this payment's payout (created once), or null when none waits. */
  requestFor(transactionId: string): Promise<OwnersRequestView | null>;
  /** Hands in one owner's signature for a request of this user's payment (by its id or the request's). */
  sign(userId: string, id: string, signature: `0x${string}`): Promise<OwnersRequestView>;
  /** The requests this user's organization sees (its own payments' and the treasury's own), newest first. */
  list(userId: string, query: OwnersListQuery): ReturnType<typeof listOwnersRequests>;
  /**
   * An agent's payment the float and the remaining allowance cannot cover: the owners' request it waits for,
   * prepared (not stored: the payment's batch stores it) — a transfer from the account to the payee (`payout`), or
   * a top-up of the float (`payment`: an x402 or MPP authorization the float signs). null: paid as before.
   */
  waitFor(toAddress: string, amountMicros: bigint, what: 'payout' | 'payment'): Promise<OwnersWait | null>;
  /** Whether this payment is held for the owners' signatures (not for an approval). */
  holds(transactionId: string): Promise<boolean>;
  /** The owners decline a held payment: its hold back, `rejected`; false when it was signed already. */
  decline(transactionId: string, reason: string | null): Promise<boolean>;
  /** A hybrid account: WebAuthn request options over this request's hash, for the caller's (personId) passkeys. */
  passkeyOptions(userId: string, personId: string, id: string): Promise<{ challenge: string }>;
  /** A hybrid account: the caller's passkey assertion over the request, verified, encoded, stored. */
  signWithPasskey(
    userId: string,
    personId: string,
    id: string,
    response: AuthenticationResponseJSON,
  ): Promise<OwnersRequestView>;
  /** The owners' request that revokes the service's delegation: the waiting one, else a new one. */
  revoke(): Promise<OwnersRequestView>;
  /** The owners' request that changes their owners and threshold: the one waiting for this change, else a new one. */
  changeOwners(change: { owners: string[]; threshold: number }): Promise<OwnersRequestView>;
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
  options: { warn: (message: string) => void; x402AllowPrivate: boolean; relyingParty: RelyingParty },
): EvmServices {
  const owners = rail.bounded === null ? null : ownersGate(ctx, rail, options.relyingParty);
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
      settleX402: () => settleX402Due({ ctx, rail, allowPrivate: false, owners: null }),
    },
    x402: createX402Service({ ctx, rail, allowPrivate: options.x402AllowPrivate, owners }),
    owners,
    pendingDeposits: (userId, page) =>
      pendingDeposits(ctx.store, rail.client, rail.config.confirmations, { userId, page }),
  };
}

/** The framework's ABIs and the owners' code: loaded in bounded mode only, when first needed (a hot rail never). */
const ownersCode = () => import('../../chain/bounded/owners-requests.ts');
const heldCode = () => import('../../chain/bounded/held-payments.ts');
const revokeCode = () => import('../../chain/bounded/owners-revoke.ts');
const changeCode = () => import('../../chain/bounded/owners-change.ts');

/**
 * Whether a payment to this address must wait for the owners: more than the float and what the allowance can
 * still refill (domain/money/treasury-cover.ts). A wallet of this service is paid on the internal ledger, and an
 * unreadable chain is refused as before (503): neither waits.
 */
async function onlyOwnersCover(
  ctx: ServiceContext,
  rail: EvmRail,
  toAddress: string,
  amountMicros: bigint,
  what: 'payout' | 'payment',
): Promise<boolean> {
  if (what === 'payout') {
    const internal = await ctx.store.db
      .selectFrom('wallets')
      .select('id')
      .where('address', '=', toAddress)
      .executeTakeFirst();
    if (internal !== undefined) return false;
  }
  const reading = await rail.treasury.read();
  if (reading === null || reading.bounded === null) return false;
  const cover = { floatMicros: reading.usdcMicros, refillableMicros: reading.bounded.refillableMicros };
  return treasuryCover(cover, amountMicros, what) === 'owners';
}

const passkeyCode = () => import('../../chain/bounded/passkey-signature.ts');

function ownersGate(ctx: ServiceContext, rail: EvmRail, rp: RelyingParty): OwnersGate {
  const deps: OwnersDeps = {
    ctx: { ...ctx, books: railBooks },
    client: rail.client,
    config: rail.config,
    keys: rail.keys,
  };
  return {
    needsOwners: (toAddress, amountMicros) => onlyOwnersCover(ctx, rail, toAddress, amountMicros, 'payout'),
    async waitFor(toAddress, amountMicros, what) {
      if (!(await onlyOwnersCover(ctx, rail, toAddress, amountMicros, what))) return null;
      // An authorization is signed by the float's key: the owners top the float up by the amount.
      const to = what === 'payout' ? toAddress : rail.keys.treasury.address;
      const request = await (await ownersCode()).prepareOwnersRequest(deps, {
        kind: 'transfer',
        toAddress: to as `0x${string}`,
        amountMicros,
      });
      return { request };
    },
    holds: async (transactionId) =>
      (await (await heldCode()).heldRequestOf(ctx.store.db, transactionId)) !== undefined,
    async decline(transactionId, reason) {
      const { heldRequestOf, releaseUnsigned } = await heldCode();
      const held = await heldRequestOf(ctx.store.db, transactionId);
      if (held === undefined) return false;
      const note = reason ?? "declined by the owners: the treasury's owners did not sign it";
      return releaseUnsigned(deps.ctx, transactionId, held, { status: 'rejected', note });
    },
    requestFor: async (transactionId) => (await ownersCode()).ownersRequestFor(deps, transactionId),
    list: async (userId, query) => (await ownersCode()).listOwnersRequests(deps, userId, query),
    sign: (userId, id, signature) =>
      refusalsAsErrors(async () => {
        await ownedRequest(ctx, deps, userId, id);
        return (await ownersCode()).addOwnerSignature(deps, id, signature);
      }),
    passkeyOptions: async (userId, personId, id) =>
      passkeyRequestOptions(ctx, deps, rp, personId, await ownedRequest(ctx, deps, userId, id)),
    signWithPasskey: (userId, personId, id, response) =>
      refusalsAsErrors(async () =>
        signWithPasskey(ctx, deps, rp, personId, await ownedRequest(ctx, deps, userId, id), response),
      ),
    async revoke() {
      const { revokeRequest, NothingToRevoke } = await revokeCode();
      try {
        return await revokeRequest(deps);
      } catch (error) {
        if (error instanceof NothingToRevoke) throw new AppError('INVALID_STATE', error.message);
        throw error;
      }
    },
    async changeOwners(change) {
      const { ownersChangeRequest, OwnersChangeRefused, NothingToChange } = await changeCode();
      try {
        return await ownersChangeRequest(deps, change);
      } catch (error) {
        if (error instanceof OwnersChangeRefused) throw new AppError('VALIDATION_ERROR', error.message);
        if (error instanceof NothingToChange) throw new AppError('INVALID_STATE', error.message);
        throw error;
      }
    },
  };
}

/**
 * The request, when this user may hand in signatures for it: one paying their own payment (another organization's
 * is not there for them: 404), or the revocation of the service's delegation or a change of the account's owners —
 * the deployment's treasury, which every owner may ask the owners' keys to act on (only those keys' signatures
 * count).
 */
async function ownedRequest(ctx: ServiceContext, deps: OwnersDeps, userId: string, id: string) {
  const row = await (await ownersCode()).findOwnersRequest(deps, id);
  if (row === undefined || !(await mayHandIn(ctx, userId, row))) throw notFound('signature request');
  return row;
}

async function mayHandIn(
  ctx: ServiceContext,
  userId: string,
  row: { kind: string; transaction_id: string | null },
): Promise<boolean> {
  if (row.kind === 'revoke' || row.kind === 'owners') return true;
  if (row.transaction_id === null) return false;
  const owned = await ctx.store.db
    .selectFrom('transactions')
    .select('id')
    .where('id', '=', row.transaction_id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return owned !== undefined;
}

/** The owners' code refuses in its own words: 409 for a second signature of one signer, 400 otherwise. */
async function refusalsAsErrors<T>(work: () => Promise<T>): Promise<T> {
  const [{ SignatureRefused }, { PasskeyRefused }] = await Promise.all([ownersCode(), passkeyCode()]);
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof SignatureRefused) && !(error instanceof PasskeyRefused)) throw error;
    if (/signed already/.test(error.message)) throw new AppError('INVALID_STATE', error.message);
    throw new AppError('VALIDATION_ERROR', `signature: ${error.message}`);
  }
}

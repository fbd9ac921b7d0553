// Sweeping deposits to the treasury without gas at any deposit address: the deposit address's key signs an
// EIP-3009 `transferWithAuthorization` (a signature, not a transaction) and the treasury submits it and pays the
// gas, through the same outbox and sender as payouts. A deposit joins exactly one sweep (the guarded update
// below), an authorization nonce is unique in the outbox, and the token refuses a used nonce: a sweep can be
// retried after any crash, never executed twice. Sweeps move money between two addresses of the service; the
// ledger does not change.
import { randomBytes } from 'node:crypto';
import { parseSignature } from 'viem';
import { newId } from '../domain/ids.ts';
import type { RailContext } from './books.ts';
import type { ChainClient } from './client.ts';
import type { EvmConfig } from './config.ts';
import type { ServiceKeys } from './keys.ts';
import type { SweepAuthorization } from './sender.ts';
import { transferWithAuthorizationTypes, USDC_DOMAIN_VERSION, usdcAbi } from './token.ts';

/** Addresses swept per round. */
const SWEEPS_PER_ROUND_MAX = 32;
/** An authorization stays valid this long: the sender has a day to get it mined. */
const AUTHORIZATION_VALID_SECONDS = 24 * 60 * 60;

export interface SweepDeps {
  ctx: RailContext;
  client: ChainClient;
  config: EvmConfig;
  keys: ServiceKeys;
  tokenName: () => Promise<string>;
  /** Where deposits go: the service's key (hot mode) or the owners' account (bounded mode). */
  sweepTo: `0x${string}`;
}

interface SweepCandidate {
  walletId: string;
  address: string;
  derivationIndex: bigint;
  amountMicros: bigint;
  depositIds: string[];
}

/** Queues one sweep per address whose credited, unswept deposits reach SWEEP_MIN_MICROS; returns how many. */
export async function planSweepsOnce(deps: SweepDeps): Promise<number> {
  const candidates = (await sweepCandidates(deps)).filter(
    (c) => c.amountMicros >= deps.config.sweepMinMicros,
  );
  if (candidates.length === 0) return 0;
  // The token checks validBefore against the chain's clock, not ours.
  const latest = await deps.client.getBlock({ blockTag: 'latest' });
  let queued = 0;
  for (const candidate of candidates) {
    const authorization = await signSweep(deps, candidate, latest.timestamp);
    if (await queueSweep(deps.ctx, candidate, authorization)) queued += 1;
  }
  return queued;
}

async function sweepCandidates(deps: SweepDeps): Promise<SweepCandidate[]> {
  const rows = await deps.ctx.store.db
    .selectFrom('chain_deposits as d')
    .innerJoin('wallets as w', 'w.id', 'd.wallet_id')
    .select(['d.id', 'd.wallet_id', 'd.amount_micros', 'w.address', 'w.derivation_index'])
    .where('d.status', '=', 'credited')
    .where('d.sweep_id', 'is', null)
    .where('w.derivation_index', 'is not', null)
    .orderBy('d.wallet_id')
    .limit(SWEEPS_PER_ROUND_MAX * 16)
    .execute();
  const byWallet = new Map<string, SweepCandidate>();
  for (const r of rows) {
    const candidate = byWallet.get(r.wallet_id) ?? {
      walletId: r.wallet_id,
      address: r.address,
      derivationIndex: r.derivation_index!,
      amountMicros: 0n,
      depositIds: [],
    };
    candidate.amountMicros += r.amount_micros;
    candidate.depositIds.push(r.id);
    byWallet.set(r.wallet_id, candidate);
  }
  return [...byWallet.values()].slice(0, SWEEPS_PER_ROUND_MAX);
}

async function signSweep(
  deps: SweepDeps,
  candidate: SweepCandidate,
  chainNowSeconds: bigint,
): Promise<SweepAuthorization> {
  const account = deps.keys.accountAt(Number(candidate.derivationIndex));
  const message = {
    from: account.address,
    // Bounded mode: straight into the owners' account, never through the service's key.
    to: deps.sweepTo,
    value: candidate.amountMicros,
    validAfter: 0n,
    validBefore: chainNowSeconds + BigInt(AUTHORIZATION_VALID_SECONDS),
    nonce: `0x${randomBytes(32).toString('hex')}` as `0x${string}`,
  };
  const signature = await account.signTypedData({
    domain: {
      name: await deps.tokenName(),
      version: USDC_DOMAIN_VERSION,
      chainId: deps.config.chainId,
      verifyingContract: deps.config.usdcAddress as `0x${string}`,
    },
    types: transferWithAuthorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message,
  });
  const { r, s, v, yParity } = parseSignature(signature);
  return {
    ...message,
    value: String(message.value),
    validAfter: String(message.validAfter),
    validBefore: String(message.validBefore),
    v: Number(v ?? BigInt(yParity + 27)),
    r,
    s,
  };
}

/** The outbox row and the deposits' claim on it, together; false when another round claimed a deposit first. */
async function queueSweep(
  ctx: RailContext,
  candidate: SweepCandidate,
  authorization: SweepAuthorization,
): Promise<boolean> {
  const nowMs = BigInt(ctx.clock.nowMs());
  const id = newId('obx');
  return ctx.writer
    .run(
      async (trx) => {
        const claimed = await trx
          .updateTable('chain_deposits')
          .set({ sweep_id: id, updated_at_ms: nowMs })
          .where('id', 'in', candidate.depositIds)
          .where('sweep_id', 'is', null)
          .executeTakeFirst();
        if (claimed.numUpdatedRows !== BigInt(candidate.depositIds.length)) throw new SweepRaceError();
        await trx
          .insertInto('chain_outbox')
          .values({
            id,
            kind: 'sweep',
            transaction_id: null,
            wallet_id: candidate.walletId,
            from_address: candidate.address,
            to_address: authorization.to.toLowerCase(),
            amount_micros: candidate.amountMicros,
            status: 'queued',
            tx_hashes_json: '[]',
            authorization_json: JSON.stringify(authorization),
            authorization_nonce: authorization.nonce,
            attempts: 0n,
            created_at_ms: nowMs,
            updated_at_ms: nowMs,
          })
          .execute();
        return true;
      },
      { wallets: [candidate.walletId] },
    )
    .catch((error: unknown) => {
      if (error instanceof SweepRaceError) return false;
      throw error;
    });
}

class SweepRaceError extends Error {}

/** The token's EIP-712 name, read once (it differs between chains: "USD Coin", "USDC"). */
export function tokenNameReader(client: ChainClient, config: EvmConfig): () => Promise<string> {
  let name: Promise<string> | null = null;
  return () => {
    name ??= client
      .readContract({ address: config.usdcAddress as `0x${string}`, abi: usdcAbi, functionName: 'name' })
      .catch((error: unknown) => {
        name = null;
        throw error;
      });
    return name;
  };
}

// The treasury's health: native gas (it pays for every payout and sweep) and USDC (what payouts are sent from).
// Read at most every TREASURY_FRESH_MS; a payout is refused with a 503 *before* any debit when the treasury
// cannot pay for it, so no payment sits in `processing` waiting for gas that is not coming. A refusal is never
// made on a cached reading alone: a sweep may have landed since (on this instance or another), so the chain is
// read again — once, bounded in time — before a payment the treasury may now cover is refused.

import type { Kysely } from 'kysely';
import { formatMicros } from '../domain/money.ts';
import { AppError } from '../errors.ts';
import type { Database } from '../store/schema.ts';
import type { ChainClient } from './client.ts';
import type { EvmConfig } from './config.ts';
import type { ServiceKeys } from './keys.ts';
import { usdcAbi } from './token.ts';

const TREASURY_FRESH_MS = 5_000;
/** The fresh read before a refusal waits this long at most; then the cached reading decides. */
const TREASURY_RECHECK_TIMEOUT_MS = 2_000;

import type { BoundedView, TreasuryReading } from './treasury-view.ts';

export type { TreasuryReading } from './treasury-view.ts';

export interface TreasuryMonitor {
  /** The latest reading, refreshed when older than TREASURY_FRESH_MS; null when the chain cannot be read. */
  read(): Promise<TreasuryReading | null>;
  /** Reads the chain now (the sender's rounds keep the reading fresh). */
  refresh(): Promise<TreasuryReading | null>;
  /** The last reading taken, without asking the chain (metrics). */
  latest(): TreasuryReading | null;
  /**
   * Why a payout (or an x402 payment: minGasWei 0, the facilitator pays the gas) of this amount cannot go out
   * now, or null. A refusal from a reading taken before the call is decided again on a fresh one.
   */
  refusal(amountMicros: bigint, minGasWei: bigint, what: 'payout' | 'payment'): Promise<string | null>;
  /** Throws 503 SERVICE_UNAVAILABLE when a payout of this amount to an outside address cannot be paid now. */
  checkPayout(db: Kysely<Database>, toAddress: string, amountMicros: bigint): Promise<void>;
}

/** Freshness is about the chain's state, so it is measured on the monotonic clock, not the service's clock. */
const monotonicMs = () => performance.now();

export function createTreasuryMonitor(
  client: ChainClient,
  config: Pick<EvmConfig, 'usdcAddress' | 'minTreasuryGasWei'>,
  keys: Pick<ServiceKeys, 'treasury'>,
  nowMs: () => number = monotonicMs,
  /** Bounded mode: the owners' account and the allowance, read with the float. */
  readBounded: (() => Promise<BoundedView>) | null = null,
): TreasuryMonitor {
  let latest: TreasuryReading | null = null;
  let reading: Promise<TreasuryReading | null> | null = null;
  const readChain = async (): Promise<TreasuryReading> => {
    const address = keys.treasury.address;
    // The time the read starts: the chain's state is at least this recent.
    const readAtMs = nowMs();
    const [gasWei, usdcMicros, bounded] = await Promise.all([
      client.getBalance({ address }),
      client.readContract({
        address: config.usdcAddress as `0x${string}`,
        abi: usdcAbi,
        functionName: 'balanceOf',
        args: [address],
      }),
      readBounded === null ? null : readBounded(),
    ]);
    const atRiskMicros = usdcMicros + (bounded?.remainingMicros ?? 0n);
    latest = { address: address.toLowerCase(), gasWei, usdcMicros, readAtMs, atRiskMicros, bounded };
    return latest;
  };
  // One read at a time: requests refused together, and the sender's round, share it.
  const refresh = () => {
    reading ??= readChain()
      .catch(() => null)
      .finally(() => {
        reading = null;
      });
    return reading;
  };
  const read = async () => {
    if (latest !== null && nowMs() - latest.readAtMs < TREASURY_FRESH_MS) return latest;
    return refresh();
  };
  const refusal = async (amountMicros: bigint, minGasWei: bigint, what: 'payout' | 'payment') => {
    const askedAtMs = nowMs();
    const cached = await read();
    const refused = payoutRefusal(cached, minGasWei, amountMicros, what);
    if (refused === null || cached === null || cached.readAtMs >= askedAtMs) return refused;
    const fresh = await within(refresh(), TREASURY_RECHECK_TIMEOUT_MS, cached);
    return payoutRefusal(fresh ?? cached, minGasWei, amountMicros, what);
  };
  return {
    read,
    refresh,
    latest: () => latest,
    refusal,
    async checkPayout(db, toAddress, amountMicros) {
      const internal = await db
        .selectFrom('wallets')
        .select('id')
        .where('address', '=', toAddress)
        .executeTakeFirst();
      if (internal !== undefined) return;
      const refused = await refusal(amountMicros, config.minTreasuryGasWei, 'payout');
      if (refused !== null) throw new AppError('SERVICE_UNAVAILABLE', refused);
    },
  };
}

/** The promise's value, or `otherwise` when it takes longer than timeoutMs. */
function within<T>(promise: Promise<T>, timeoutMs: number, otherwise: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(otherwise), timeoutMs);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * Pure: why a payout (or an x402 payment, which the treasury's USDC pays too) cannot go out now, or null.
 */
export function payoutRefusal(
  reading: TreasuryReading | null,
  minGasWei: bigint,
  amountMicros: bigint,
  what: 'payout' | 'payment' = 'payout',
): string | null {
  if (reading === null) return `the chain cannot be reached; ${what}s are paused, nothing was debited`;
  if (reading.gasWei < minGasWei) {
    return `the treasury is low on gas; ${what}s are paused until it is topped up, nothing was debited`;
  }
  // Bounded mode: a payout the float cannot cover now waits (queued) for the refill the allowance still permits;
  // an x402 or MPP authorization is settled by the seller at once, so only the float itself can pay it.
  if (reading.bounded !== null) {
    const payableMicros = reading.usdcMicros + (what === 'payout' ? reading.bounded.refillableMicros : 0n);
    if (payableMicros >= amountMicros) return null;
    const source =
      what === 'payout'
        ? "the service's float and what this period's allowance can still refill"
        : "the service's float (refilled within the period's allowance shortly)";
    return `${source} (${formatMicros(payableMicros)} USDC) are less than this ${what}; nothing was debited`;
  }
  if (reading.usdcMicros < amountMicros) {
    return `the treasury holds ${formatMicros(reading.usdcMicros)} USDC on chain, less than this ${what}; nothing was debited`;
  }
  return null;
}

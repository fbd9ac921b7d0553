// The treasury's health: native gas (it pays for every payout and sweep) and USDC (what payouts are sent from).
// Read at most every TREASURY_FRESH_MS; a payout is refused with a 503 *before* any debit when the treasury
// cannot pay for it, so no payment sits in `processing` waiting for gas that is not coming.

import type { Kysely } from 'kysely';
import { formatMicros } from '../domain/money.ts';
import { AppError } from '../errors.ts';
import type { Database } from '../store/schema.ts';
import type { ChainClient } from './client.ts';
import type { EvmConfig } from './config.ts';
import type { ServiceKeys } from './keys.ts';
import { usdcAbi } from './token.ts';

const TREASURY_FRESH_MS = 5_000;

import type { TreasuryReading } from './treasury-view.ts';

export type { TreasuryReading } from './treasury-view.ts';

export interface TreasuryMonitor {
  /** The latest reading, refreshed when older than TREASURY_FRESH_MS; null when the chain cannot be read. */
  read(): Promise<TreasuryReading | null>;
  /** Reads the chain now (the sender's rounds keep the reading fresh). */
  refresh(): Promise<TreasuryReading | null>;
  /** The last reading taken, without asking the chain (metrics). */
  latest(): TreasuryReading | null;
  /** Throws 503 SERVICE_UNAVAILABLE when a payout of this amount to an outside address cannot be paid now. */
  checkPayout(db: Kysely<Database>, toAddress: string, amountMicros: bigint): Promise<void>;
}

/** Freshness is about the chain's state, so it is measured on the monotonic clock, not the service's clock. */
const monotonicMs = () => performance.now();

export function createTreasuryMonitor(
  client: ChainClient,
  config: EvmConfig,
  keys: ServiceKeys,
): TreasuryMonitor {
  let latest: TreasuryReading | null = null;
  const refresh = async (): Promise<TreasuryReading> => {
    const address = keys.treasury.address;
    const [gasWei, usdcMicros] = await Promise.all([
      client.getBalance({ address }),
      client.readContract({
        address: config.usdcAddress as `0x${string}`,
        abi: usdcAbi,
        functionName: 'balanceOf',
        args: [address],
      }),
    ]);
    latest = { address: address.toLowerCase(), gasWei, usdcMicros, readAtMs: monotonicMs() };
    return latest;
  };
  const read = async () => {
    if (latest !== null && monotonicMs() - latest.readAtMs < TREASURY_FRESH_MS) return latest;
    return refresh().catch(() => null);
  };
  return {
    read,
    refresh: () => refresh().catch(() => null),
    latest: () => latest,
    async checkPayout(db, toAddress, amountMicros) {
      const internal = await db
        .selectFrom('wallets')
        .select('id')
        .where('address', '=', toAddress)
        .executeTakeFirst();
      if (internal !== undefined) return;
      const reading = await read();
      const refusal = payoutRefusal(reading, config.minTreasuryGasWei, amountMicros);
      if (refusal !== null) throw new AppError('SERVICE_UNAVAILABLE', refusal);
    },
  };
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
  if (reading.usdcMicros < amountMicros) {
    return `the treasury holds ${formatMicros(reading.usdcMicros)} USDC on chain, less than this ${what}; nothing was debited`;
  }
  return null;
}

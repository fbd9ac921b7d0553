// Bounded mode (TREASURY_MODE=bounded): who pays an outside payment. The service's float pays, topped up within
// the period's allowance; what even the float and the remaining allowance cannot cover waits for the owners'
// signatures instead of being refused — an owner's withdrawal answers 202 awaiting_signatures, an agent's
// payment is recorded `pending` with OWNERS_WAIT_REASON. Pure: the services read the chain, this decides.

/** What the chain lets the service pay from now: its float, and what a refill could still add to it. */
export interface CoverReading {
  floatMicros: bigint;
  /** The remaining allowance as far as the account's USDC and TREASURY_FLOAT_MAX let a refill take it. */
  refillableMicros: bigint;
}

/**
 * - `float`: paid as before — a payout from the float (a refill the allowance permits comes first if needed), an
 *   x402 or MPP authorization from the float as it is;
 * - `later`: an authorization the float cannot cover now but the allowance can (the refill is on its way):
 *   refused for now as before, retried shortly;
 * - `owners`: more than the float and the whole remaining allowance: only the owners' account can pay it.
 */
export type TreasuryCover = 'float' | 'later' | 'owners';

/**
 * A payout (sent by the service's sender, which waits for a refill) is covered by the float plus the refillable;
 * an authorization (settled by the seller at once) by the float alone — but it waits for the owners only when
 * the refillable cannot make up the difference either.
 */
export function treasuryCover(
  reading: CoverReading,
  amountMicros: bigint,
  what: 'payout' | 'payment',
): TreasuryCover {
  if (reading.floatMicros + reading.refillableMicros < amountMicros) return 'owners';
  if (what === 'payment' && reading.floatMicros < amountMicros) return 'later';
  return 'float';
}

/** The words an agent's payment that waits for the owners carries (its `reason`). */
export const OWNERS_WAIT_REASON =
  "the treasury's allowance for this period cannot cover it: the owners are asked to sign";

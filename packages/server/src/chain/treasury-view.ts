// The treasury as health shows it: pure, and free of viem, so a sandbox server never loads the chain code.
import { toChecksumAddress } from '../domain/address.ts';
import { formatMicros } from '../domain/money.ts';

export interface TreasuryReading {
  address: string;
  gasWei: bigint;
  /** USDC the service's key holds: the whole treasury in hot mode, the float in bounded mode. */
  usdcMicros: bigint;
  readAtMs: number;
  /** What a breach of the server could move now: the float, plus in bounded mode the remaining allowance. */
  atRiskMicros: bigint;
  /** Bounded mode: the owners' account and the allowance as the chain has them; null in hot mode. */
  bounded: BoundedView | null;
}

export interface BoundedView {
  account: string;
  owners: string[];
  threshold: number;
  allowanceMicros: bigint;
  periodSeconds: number;
  /** null until the owners' delegation is stored (nothing can be refilled: the float is all that is at risk). */
  remainingMicros: bigint | null;
  resetsAtSeconds: number | null;
  /** What a refill could add to the float now: the remaining allowance, the account's USDC and the cap allowing. */
  refillableMicros: bigint;
}

/** Pure: what health says about the treasury, in words an operator can act on. */
export function treasuryReasons(reading: TreasuryReading | null, minGasWei: bigint): string[] {
  if (reading === null) return ['the evm chain cannot be reached: deposits wait and payouts are refused'];
  // No address: reasons are public, and the treasury's address is shown only to the operator and users.
  if (reading.gasWei < minGasWei) {
    return ['the treasury is low on gas (below TREASURY_MIN_GAS_WEI): payouts are refused'];
  }
  return [];
}

/** The treasury as /api/v1/health shows it: amounts as decimal strings, gas in wei. */
export function treasuryView(reading: TreasuryReading | null) {
  if (reading === null) return null;
  return { address: reading.address, gasWei: String(reading.gasWei), usdc: formatMicros(reading.usdcMicros) };
}

/**
 * The treasury as GET /api/v1/wallet/treasury shows it (contract section 14). In `hot` mode the service's own key
 * holds every dollar: no owners, no allowance, and what a breach of the server could take (`atRisk`) is all of
 * it — the float is the whole treasury. In `bounded` mode the money rests in the owners' account and `atRisk` is
 * the float plus what the chain still lets the service take this period.
 */
export function treasuryStateView(mode: 'hot' | 'bounded', reading: TreasuryReading) {
  const float = formatMicros(reading.usdcMicros);
  const bounded = reading.bounded;
  if (mode === 'bounded' && bounded !== null) {
    return {
      mode,
      account: toChecksumAddress(bounded.account),
      owners: bounded.owners.map(toChecksumAddress),
      threshold: bounded.threshold,
      allowance: {
        perPeriod: formatMicros(bounded.allowanceMicros),
        period: periodText(bounded.periodSeconds),
        remaining: formatMicros(bounded.remainingMicros ?? 0n),
        resetsAt:
          bounded.resetsAtSeconds === null ? null : new Date(bounded.resetsAtSeconds * 1000).toISOString(),
      },
      float,
      atRisk: formatMicros(reading.atRiskMicros),
    };
  }
  return {
    mode,
    account: toChecksumAddress(reading.address),
    owners: [],
    threshold: null,
    allowance: null,
    float,
    atRisk: float,
  };
}

/** Pure: a period in its largest whole unit, as TREASURY_ALLOWANCE_PERIOD is written ("1d", "12h", "90m"). */
export function periodText(seconds: number): string {
  for (const [unit, size] of [
    ['w', 604_800],
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
  ] as const) {
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}

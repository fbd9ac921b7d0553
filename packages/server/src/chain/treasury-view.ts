// The treasury as health shows it: pure, and free of viem, so a sandbox server never loads the chain code.
import { toChecksumAddress } from '../domain/address.ts';
import { formatMicros } from '../domain/money.ts';

export interface TreasuryReading {
  address: string;
  gasWei: bigint;
  usdcMicros: bigint;
  readAtMs: number;
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
 * it — the float is the whole treasury.
 */
export function treasuryStateView(mode: 'hot', reading: TreasuryReading) {
  const float = formatMicros(reading.usdcMicros);
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

// The treasury as health shows it: pure, and free of viem, so a sandbox server never loads the chain code.
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

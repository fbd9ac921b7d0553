// What verify-ledger --chain asks of each way money moves on chain (a part): which USDC transfers are its own,
// which of its records the chain never showed, and what it still owes out of the holdings. The parts are the
// deposits, the outbox's transactions (sweeps, payouts) and the paid requests of every authorization kind a
// payment method signs (EIP-3009, Permit2); reconcile.ts offers every transfer to each in turn.
import { formatMicros } from '../../domain/money.ts';
import type { ChainClient } from '../client.ts';
import type { ChainTransfer } from '../deposits.ts';

/** The service's addresses, as every part reads a transfer. */
export interface Scope {
  /** Lower-case, as every address here. */
  treasury: string;
  usdcAddress: string;
  wallets: Set<string>;
  /** Bounded mode: the owners' account, which holds the reserves with the float; null in hot mode. */
  account: string | null;
}

export type Report = (problem: string) => void;

export interface ChainPart {
  /**
   * Whether the transfer is this part's: matched to one of its records, or of its shape with none to match
   * (reported here, then). False leaves it to the next part.
   */
  claim(transfer: ChainTransfer, report: Report): boolean;
  /** Once every transfer was offered: the records the chain should have shown and did not. */
  reportUnmatched(report: Report): void;
  /** What the part still owes out of the holdings beyond the wallets' balances (in flight, not yet moved). */
  owedMicros(client: ChainClient): Promise<bigint>;
  /** Addresses that hold USDC for the ledger besides the treasury. */
  holdingAddresses(): string[];
}

/** A transfer named in a problem. */
export function transferName(t: ChainTransfer): string {
  return `transfer ${t.txHash}:${t.logIndex} of ${formatMicros(t.valueMicros)} USDC from ${t.from} to ${t.to}`;
}

/** The blocks verify-ledger reads, from the history's start to the head. */
export interface BlockSpan {
  from: bigint;
  to: bigint;
}

/** Blocks per getLogs call while scanning the service's history. */
const SCAN_RANGE_BLOCKS = 2_000n;

/** A span cut into getLogs-sized ranges, in order. */
export function* scanRanges(span: BlockSpan): Generator<BlockSpan> {
  for (let from = span.from; from <= span.to; from += SCAN_RANGE_BLOCKS) {
    const to = from + SCAN_RANGE_BLOCKS - 1n;
    yield { from, to: to < span.to ? to : span.to };
  }
}

// What the rail's workers need from the floors above them, handed in when the services open the rail
// (services/rail/rail-books.ts builds the books): the rail is an adapter the services call, so it imports none of
// them. The books write in the ledger writer's transaction the worker opened, under the wallet's lock.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { LedgerWriter } from '../ledger/writer.ts';
import type { Store } from '../store/db.ts';
import type { Database } from '../store/schema.ts';

/** A transfer to a wallet's address, confirmed on chain and claimed once (its chain_deposits row). */
export interface ChainCredit {
  /** The claimed chain_deposits row: what the ledger transaction references. */
  chainDepositId: string;
  walletId: string;
  userId: string;
  kind: 'master' | 'agent';
  /** The wallet's lower-case address. */
  address: string;
  amountMicros: bigint;
  txHash: string;
  nowMs: number;
}

/** A payment that left through the rail (a payout, an x402 authorization). */
export interface ChainPayment {
  transactionId: string;
  walletId: string;
  amountMicros: bigint;
}

export type ChainPaymentEnding =
  // txHash null: a metered payment the seller settled for nothing (nothing moved on chain).
  | { kind: 'completed'; txHash: string | null; note: string }
  | { kind: 'failed'; txHash: string | null; note: string; refundKind: string };

/**
 * How an agent's payment held while the owners sign ends (bounded mode): their operation confirmed (`paid`: a
 * plain payment completes with its hash; an x402 or MPP payment, whose float it topped up, becomes payable by the
 * agent's next call), or the hold goes back to the wallet with the payment's final status.
 */
export type HeldEnding =
  | { kind: 'paid'; txHash: string; note: string }
  | { kind: 'released'; status: 'expired' | 'rejected' | 'failed'; note: string };

export interface RailBooks {
  /** Ends a payment held for the owners' signatures, once (a payment no longer pending is left as it is). */
  finishHeldPayment(
    trx: Kysely<Database>,
    payment: ChainPayment,
    ending: HeldEnding,
    nowMs: number,
  ): Promise<void>;
  /** Credits the wallet (ledger, deposit record, webhook, and an agent's `incoming` history); the deposit's id. */
  creditDeposit(trx: Kysely<Database>, credit: ChainCredit): Promise<string>;
  /** Completes the payment with its chain transaction, or fails it with its money moved back to the wallet. */
  finishChainPayment(
    trx: Kysely<Database>,
    payment: ChainPayment,
    ending: ChainPaymentEnding,
    nowMs: number,
  ): Promise<void>;
}

/** The rail's workers' context: the services' store, writer and clock, and the books. */
export interface RailContext {
  store: Store;
  writer: LedgerWriter;
  clock: Clock;
  books: RailBooks;
}

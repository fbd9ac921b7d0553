// Where a payment's money goes. An address of a wallet of this service settles on the internal ledger in the
// same database transaction; any other address goes to the configured external rail. Rails sit behind one
// interface so the EVM rail (real transfers, `processing` until confirmed) slots in beside the sandbox.
import type { Kysely } from 'kysely';
import { payoutRow } from '../chain/outbox-rows.ts';
import { newId } from '../domain/ids.ts';
import { accountIds, postTransfer } from '../ledger/ledger.ts';
import type { Database } from '../store/schema.ts';
import { recordDeposit } from './deposits.ts';
import { insertTransaction } from './transactions.ts';
import { type WalletRow, walletByAddress } from './wallet-rows.ts';

export interface SettlementRequest {
  paymentId: string;
  /** The paying agent wallet. */
  wallet: WalletRow;
  /** Where the money is now: the wallet's available account, or its hold account for an approved payment. */
  fromAccountId: string;
  /** Lower-case address. */
  toAddress: string;
  amountMicros: bigint;
  memo: string | null;
  initiatedBy: string;
  nowMs: number;
}

export interface SettlementResult {
  status: 'completed' | 'processing' | 'failed';
  rail: string;
  txHash: string | null;
  failureReason: string | null;
}

export interface ExternalRail {
  readonly name: string;
  /** Runs inside the payment's database transaction; a failed settlement must leave the money where it was. */
  settle(trx: Kysely<Database>, request: SettlementRequest): Promise<SettlementResult>;
}

/** Simulated outside world: money leaves the ledger at once into the rail's account. */
export const sandboxRail: ExternalRail = {
  name: 'sandbox',
  async settle(trx, request) {
    await debitToRail(trx, request, 'sandbox');
    return { status: 'completed', rail: 'sandbox', txHash: null, failureReason: null };
  },
};

/** The payment's money leaves the ledger into the rail's outside-world account. */
async function debitToRail(trx: Kysely<Database>, request: SettlementRequest, rail: string): Promise<void> {
  await postTransfer(trx, {
    kind: 'payment_external',
    referenceId: request.paymentId,
    nowMs: request.nowMs,
    legs: [
      { accountId: request.fromAccountId, amountMicros: -request.amountMicros },
      { accountId: accountIds.external(rail), amountMicros: request.amountMicros },
    ],
  });
}

export async function settle(
  trx: Kysely<Database>,
  rail: ExternalRail,
  request: SettlementRequest,
): Promise<SettlementResult> {
  const recipient = await walletByAddress(trx, request.toAddress);
  if (recipient === undefined) return rail.settle(trx, request);
  const ledgerTransactionId = await postTransfer(trx, {
    kind: 'payment_internal',
    referenceId: request.paymentId,
    nowMs: request.nowMs,
    legs: [
      { accountId: request.fromAccountId, amountMicros: -request.amountMicros },
      { accountId: accountIds.available(recipient.id), amountMicros: request.amountMicros },
    ],
  });
  await creditRecipient(trx, recipient, request, ledgerTransactionId);
  return { status: 'completed', rail: 'internal', txHash: null, failureReason: null };
}

/** The receiving side's record: an `incoming` transaction on an agent wallet, a deposit on a master wallet. */
async function creditRecipient(
  trx: Kysely<Database>,
  recipient: WalletRow,
  request: SettlementRequest,
  ledgerTransactionId: string,
): Promise<void> {
  if (recipient.kind === 'master') {
    await recordDeposit(trx, {
      walletId: recipient.id,
      userId: recipient.user_id,
      amountMicros: request.amountMicros,
      rail: 'internal',
      ledgerTransactionId,
      nowMs: request.nowMs,
    });
    return;
  }
  await insertTransaction(trx, {
    walletId: recipient.id,
    userId: recipient.user_id,
    type: 'incoming',
    status: 'completed',
    amountMicros: request.amountMicros,
    toAddress: recipient.address,
    counterpartyWalletId: request.wallet.id,
    memo: request.memo,
    reason: null,
    rail: 'internal',
    rejectionReason: null,
    violations: null,
    initiatedBy: request.initiatedBy,
    idempotencyKey: null,
    expiresAtMs: null,
    relatedTransactionId: request.paymentId,
    nowMs: request.nowMs,
  });
}

/**
 * A rail whose payouts are sent later by its own sender (evm): the money leaves the wallet now, the payment is
 * `processing`, and the outbox row that will send it is written in the same database transaction.
 */
export function outboxRail(name: string, fromAddress: string): ExternalRail {
  return {
    name,
    async settle(trx, request) {
      await debitToRail(trx, request, name);
      const payout = {
        transactionId: request.paymentId,
        walletId: request.wallet.id,
        toAddress: request.toAddress,
        amountMicros: request.amountMicros,
        nowMs: request.nowMs,
      };
      await trx
        .insertInto('chain_outbox')
        .values(payoutRow(payout, fromAddress, newId('obx')))
        .execute();
      return { status: 'processing', rail: name, txHash: null, failureReason: null };
    },
  };
}

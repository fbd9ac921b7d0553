// The owner's withdrawal from the master wallet to an address of their book, decided in memory against a batch's
// state like any payment (see batch.ts): recorded as a payment of the master wallet, so the rail pays it the
// way it pays an agent's payment — at once on the sandbox, through the payout outbox on evm (a failed payout
// returns the money), on the internal ledger when the address is a wallet of this service. The address book's
// delay is checked before the command is submitted (services/money/withdrawals.ts). Pure.

import { formatMicros } from '../money.ts';
import { failure, type Outcome, success } from '../outcome.ts';
import { accountIds } from './accounts.ts';
import type { BatchContext, BatchEffects, BatchState } from './batch-state.ts';
import { masterOf } from './movement-batch.ts';
import { payRecipient, recipientOf } from './payment-batch.ts';

export interface MasterWithdrawalCommand {
  kind: 'master_withdrawal';
  userId: string;
  /** Lower-case address, an active entry of the user's withdrawal address book. */
  toAddress: string;
  amountMicros: bigint;
  memo: string | null;
  idempotency: { scope: string; key: string; fingerprint: string } | null;
  nowMs: number;
  /** Bounded mode: paid by the owners' account once they sign, not from the service's float. */
  viaOwners?: true;
}

export interface WithdrawalData {
  id: string;
  toAddress: string;
  amountMicros: string;
  memo: string | null;
  status: 'completed' | 'processing';
  rail: string;
  nowMs: number;
  /** The payout waits for the owners' signatures (answered 202 awaiting_signatures). */
  awaitingOwners?: true;
}

export function decideMasterWithdrawal(
  state: BatchState,
  command: MasterWithdrawalCommand,
  context: BatchContext,
  effects: BatchEffects,
): Outcome<WithdrawalData> {
  const master = masterOf(state, command.userId);
  if (master.availableMicros < command.amountMicros) {
    return failure(
      'INSUFFICIENT_BALANCE',
      `the master wallet has ${formatMicros(master.availableMicros)} USDC available`,
    );
  }
  const id = context.newId('tx');
  const recipient = recipientOf(state, command.toAddress);
  const { status, rail } = payRecipient(state, context, effects, {
    id,
    payer: master,
    recipient,
    fromAccountId: accountIds.available(master.id),
    amountMicros: command.amountMicros,
    memo: command.memo,
    initiatedBy: `user:${command.userId}`,
    nowMs: command.nowMs,
  });
  const { toAddress, amountMicros, nowMs } = command;
  const awaitingOwners = status === 'processing' && command.viaOwners === true;
  if (status === 'processing') {
    const payout = { transactionId: id, walletId: master.id, toAddress, amountMicros, nowMs };
    effects.payouts.push(awaitingOwners ? { ...payout, awaitingOwners } : payout);
  }
  effects.records.push({
    id,
    walletId: master.id,
    userId: command.userId,
    type: 'payment',
    withdrawal: true,
    status,
    amountMicros,
    toAddress,
    counterpartyWalletId: recipient?.id ?? null,
    memo: command.memo,
    reason: null,
    rail,
    rejectionReason: null,
    violations: null,
    initiatedBy: `user:${command.userId}`,
    idempotencyKey: command.idempotency?.key ?? null,
    expiresAtMs: null,
    relatedTransactionId: null,
    nowMs,
  });
  // Amounts travel as strings: the outcome is stored as JSON for idempotent replays.
  return success({
    id,
    toAddress,
    amountMicros: String(amountMicros),
    memo: command.memo,
    status,
    rail,
    nowMs,
    ...(awaitingOwners ? { awaitingOwners } : {}),
  });
}

// The owner's withdrawals from a master wallet: decided by domain/money/withdrawal-batch.ts. A withdrawal is a
// payment of the master wallet (its record, payout and ledger transfer are written with the others'); here what
// it names for the batch's load and its event, `withdrawal.*` rather than `payment.*`.
import type { RecordSpec } from '../../../domain/money/batch-state.ts';
import type { MasterWithdrawalCommand } from '../../../domain/money/withdrawal-batch.ts';
import { transactionRow, withdrawalView } from '../../wallets/transactions.ts';
import type { NewEvent } from '../../webhooks/webhook-events.ts';
import type { Named } from './module.ts';

/** The owner's master wallet and the recipient (credited in the batch if it is a wallet of this service). */
export function nameWithdrawal(command: MasterWithdrawalCommand, named: Named): void {
  named.masterUsers.add(command.userId);
  named.addresses.add(command.toAddress);
}

/** A withdrawal reports when it completes (a processing one when the rail ends it). */
export function withdrawalEvent(record: RecordSpec): NewEvent | null {
  if (record.status !== 'completed') return null;
  const row = transactionRow(record);
  return {
    userId: record.userId,
    type: 'withdrawal.completed',
    data: () => withdrawalView(row),
    nowMs: record.nowMs,
  };
}

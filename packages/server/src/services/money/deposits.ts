// Money entering a master wallet from outside: sandbox deposits now, EVM deposits with their rail later,
// and payments from other wallets of this service (rail "internal").

import type { Kysely } from 'kysely';
import { isoFromMs } from '../../clock.ts';
import { newId } from '../../domain/ids.ts';
import type { DepositCommand } from '../../domain/money/movement-batch.ts';
import { formatMicros } from '../../domain/money.ts';
import { unwrap } from '../../domain/outcome.ts';
import type { NewDeposit } from '../../domain/records.ts';
import type { Database } from '../../store/schema.ts';
import { type Page, pageOf, type ServiceContext } from '../context.ts';
import { submitCommand } from './idempotency.ts';

export interface DepositView {
  id: string;
  amount: string;
  currency: 'USDC';
  rail: string;
  txHash: string | null;
  createdAt: string;
}

/** The row a deposit is stored as. */
export function depositRow(deposit: NewDeposit) {
  return {
    id: deposit.id,
    wallet_id: deposit.walletId,
    user_id: deposit.userId,
    amount_micros: deposit.amountMicros,
    rail: deposit.rail,
    tx_hash: deposit.txHash ?? null,
    ledger_transaction_id: deposit.ledgerTransactionId,
    created_at_ms: BigInt(deposit.nowMs),
  };
}

/** A stored deposit as the REST API shows it. */
export function depositViewOf(row: {
  id: string;
  amount_micros: bigint;
  rail: string;
  tx_hash: string | null;
  created_at_ms: bigint;
}): DepositView {
  return {
    id: row.id,
    amount: formatMicros(row.amount_micros),
    currency: 'USDC',
    rail: row.rail,
    txHash: row.tx_hash,
    createdAt: isoFromMs(row.created_at_ms),
  };
}

export async function recordDeposit(
  trx: Kysely<Database>,
  input: Omit<NewDeposit, 'id'>,
): Promise<DepositView> {
  const row = depositRow({ ...input, id: newId('dep') });
  await trx.insertInto('deposits').values(row).execute();
  return depositViewOf(row);
}

export interface DepositService {
  sandboxDeposit(userId: string, amountMicros: bigint): Promise<DepositView & { balance: string }>;
  list(userId: string, page: Page): Promise<{ items: DepositView[]; total: number }>;
}

export function createDepositService(ctx: ServiceContext): DepositService {
  const { store, writer, clock } = ctx;

  /** A batch command of the ledger writer (domain/money/movement-batch.ts): the rail's money into the master wallet. */
  async function sandboxDeposit(userId: string, amountMicros: bigint) {
    const command: DepositCommand = {
      kind: 'deposit',
      userId,
      amountMicros,
      rail: 'sandbox',
      idempotency: null,
      nowMs: clock.nowMs(),
    };
    const { outcome } = await submitCommand(writer, command, {
      mastersOf: [userId],
    });
    const deposit = unwrap(outcome);
    return {
      id: deposit.id,
      amount: formatMicros(deposit.amountMicros),
      currency: 'USDC' as const,
      rail: deposit.rail,
      txHash: null,
      createdAt: isoFromMs(deposit.nowMs),
      balance: formatMicros(deposit.balanceMicros),
    };
  }

  async function list(userId: string, page: Page) {
    const base = store.db.selectFrom('deposits').where('user_id', '=', userId);
    const { rows, total } = await pageOf(base, page);
    return { items: rows.map(depositViewOf), total };
  }

  return { sandboxDeposit, list };
}

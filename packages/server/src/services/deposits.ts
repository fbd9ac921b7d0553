// Money entering a master wallet from outside: sandbox deposits now, EVM deposits with their rail later,
// and payments from other wallets of this service (rail "internal").
import type { Kysely } from 'kysely';
import { isoFromMs } from '../clock.ts';
import { newId } from '../domain/ids.ts';
import { formatMicros } from '../domain/money.ts';
import { accountIds, postTransfer } from '../ledger/ledger.ts';
import type { Database } from '../store/schema.ts';
import { type Page, pageOf, type ServiceContext } from './context.ts';
import { masterWalletOf } from './wallet-rows.ts';

export interface DepositView {
  id: string;
  amount: string;
  currency: 'USDC';
  rail: string;
  txHash: string | null;
  createdAt: string;
}

export async function recordDeposit(
  trx: Kysely<Database>,
  input: {
    walletId: string;
    userId: string;
    amountMicros: bigint;
    rail: string;
    ledgerTransactionId: string;
    nowMs: number;
  },
): Promise<DepositView> {
  const id = newId('dep');
  await trx
    .insertInto('deposits')
    .values({
      id,
      wallet_id: input.walletId,
      user_id: input.userId,
      amount_micros: input.amountMicros,
      rail: input.rail,
      tx_hash: null,
      ledger_transaction_id: input.ledgerTransactionId,
      created_at_ms: BigInt(input.nowMs),
    })
    .execute();
  return {
    id,
    amount: formatMicros(input.amountMicros),
    currency: 'USDC',
    rail: input.rail,
    txHash: null,
    createdAt: isoFromMs(input.nowMs),
  };
}

export interface DepositService {
  sandboxDeposit(userId: string, amountMicros: bigint): Promise<DepositView & { balance: string }>;
  list(userId: string, page: Page): Promise<{ items: DepositView[]; total: number }>;
}

export function createDepositService(ctx: ServiceContext): DepositService {
  const { store, writer, clock } = ctx;

  async function sandboxDeposit(userId: string, amountMicros: bigint) {
    const nowMs = clock.nowMs();
    return writer.run(
      async (trx) => {
        const master = await masterWalletOf(trx, userId);
        const ledgerTransactionId = await postTransfer(trx, {
          kind: 'deposit',
          referenceId: master.id,
          nowMs,
          legs: [
            { accountId: accountIds.external('sandbox'), amountMicros: -amountMicros },
            { accountId: accountIds.available(master.id), amountMicros },
          ],
        });
        const deposit = await recordDeposit(trx, {
          walletId: master.id,
          userId,
          amountMicros,
          rail: 'sandbox',
          ledgerTransactionId,
          nowMs,
        });
        const balance = await trx
          .selectFrom('accounts')
          .select('balance_micros')
          .where('id', '=', accountIds.available(master.id))
          .executeTakeFirstOrThrow();
        return { ...deposit, balance: formatMicros(balance.balance_micros) };
      },
      { mastersOf: [userId] },
    );
  }

  async function list(userId: string, page: Page) {
    const base = store.db.selectFrom('deposits').where('user_id', '=', userId);
    const { rows, total } = await pageOf(base, page);
    const items = rows.map((r) => ({
      id: r.id,
      amount: formatMicros(r.amount_micros),
      currency: 'USDC' as const,
      rail: r.rail,
      txHash: r.tx_hash,
      createdAt: isoFromMs(r.created_at_ms),
    }));
    return { items, total };
  }

  return { sandboxDeposit, list };
}

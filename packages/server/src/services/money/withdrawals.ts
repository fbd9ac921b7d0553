// The owner takes money out of the master wallet (contract section 8): only to an address of their book, and only
// once the address has waited WITHDRAWAL_ADDRESS_DELAY_SECONDS since it was added — so a thief who got in cannot
// add an address and use it before the owner, told by `withdrawal_address.added`, removes it. The withdrawal
// itself is a batch command (domain/money/withdrawal-batch.ts): idempotent, decided with the ledger's other writes.
import { isoFromMs } from '../../clock.ts';
import { toChecksumAddress } from '../../domain/address.ts';
import { newId } from '../../domain/ids.ts';
import type { MasterWithdrawalCommand, WithdrawalData } from '../../domain/money/withdrawal-batch.ts';
import { formatMicros } from '../../domain/money.ts';
import type { Outcome } from '../../domain/outcome.ts';
import { AppError, invalid, notFound } from '../../errors.ts';
import { lockOwnerRow } from '../../store/locks.ts';
import type { WithdrawalAddressesTable } from '../../store/schema.ts';
import { type Page, pageOf, type ServiceContext } from '../context.ts';
import { withdrawalView } from '../wallets/transactions.ts';
import { masterWalletOf } from '../wallets/wallet-rows.ts';
import { emitEvent } from '../webhooks/webhook-events.ts';
import { type IdempotencyRequest, submitCommand } from './idempotency.ts';
import type { PayoutGate } from './payments.ts';

export const WITHDRAWAL_ADDRESSES_PER_USER_MAX = 100;

export interface WithdrawalAddressView {
  id: string;
  address: string;
  label: string;
  status: 'pending' | 'active';
  activatesAt: string;
  createdAt: string;
}

/** Pure: an entry's status is computed from the clock, never stored. */
export function addressView(row: WithdrawalAddressesTable, nowMs: number): WithdrawalAddressView {
  return {
    id: row.id,
    address: toChecksumAddress(row.address),
    label: row.label,
    status: BigInt(nowMs) >= row.activates_at_ms ? 'active' : 'pending',
    activatesAt: isoFromMs(row.activates_at_ms),
    createdAt: isoFromMs(row.created_at_ms),
  };
}

export interface WithdrawalRequest {
  userId: string;
  toAddress: string;
  amountMicros: bigint;
  memo: string | null;
  idempotency: IdempotencyRequest | null;
}

/** Bounded mode's gate (services/rail/evm.ts): payouts the owners' account makes once they sign. */
export interface WithdrawalOwners {
  needsOwners(toAddress: string, amountMicros: bigint): Promise<boolean>;
  requestFor(transactionId: string): Promise<{
    signRequest: unknown;
    signaturesNeeded: number;
  } | null>;
}

export function createWithdrawalService(
  ctx: ServiceContext,
  options: { delayMs: number; payoutGate: PayoutGate; owners: WithdrawalOwners | null },
) {
  const { store, writer, clock } = ctx;

  /** Refused unless `toAddress` is an active entry of the book: the message says when a pending one activates. */
  async function requireActive(userId: string, toAddress: string) {
    const entry = await store.db
      .selectFrom('withdrawal_addresses')
      .select(['activates_at_ms'])
      .where('user_id', '=', userId)
      .where('address', '=', toAddress)
      .executeTakeFirst();
    if (entry === undefined) {
      throw new AppError('WITHDRAWAL_ADDRESS_NOT_ALLOWED', 'toAddress is not in the withdrawal address book');
    }
    if (BigInt(clock.nowMs()) < entry.activates_at_ms) {
      throw new AppError(
        'WITHDRAWAL_ADDRESS_NOT_ALLOWED',
        `toAddress is in the book but pending: usable from ${isoFromMs(entry.activates_at_ms)}`,
      );
    }
  }

  async function withdraw(request: WithdrawalRequest): Promise<Outcome<WithdrawalData>> {
    await requireActive(request.userId, request.toAddress);
    const viaOwners =
      options.owners !== null && (await options.owners.needsOwners(request.toAddress, request.amountMicros));
    // Paid by the owners' account once they sign: the float's own limits do not apply.
    if (!viaOwners && options.payoutGate !== null)
      await options.payoutGate(request.toAddress, request.amountMicros);
    const command: MasterWithdrawalCommand = {
      ...(viaOwners ? { viaOwners: true as const } : {}),
      kind: 'master_withdrawal',
      userId: request.userId,
      toAddress: request.toAddress,
      amountMicros: request.amountMicros,
      memo: request.memo,
      idempotency: request.idempotency,
      nowMs: clock.nowMs(),
    };
    // The master wallet and, if it is a wallet of this service, the recipient: both locked for the batch.
    const result = await submitCommand(writer, command, {
      mastersOf: [request.userId],
      addresses: [request.toAddress],
    });
    return result.outcome;
  }

  function masterPayments(masterId: string) {
    return store.db
      .selectFrom('transactions')
      .where('wallet_id', '=', masterId)
      .where('type', '=', 'payment');
  }

  async function list(userId: string, page: Page) {
    const master = await masterWalletOf(store.db, userId);
    const { rows, total } = await pageOf(masterPayments(master.id), page);
    return { items: rows.map(withdrawalView), total, page: page.page, limit: page.limit };
  }

  async function get(userId: string, id: string) {
    const master = await masterWalletOf(store.db, userId);
    const row = await masterPayments(master.id).selectAll().where('id', '=', id).executeTakeFirst();
    if (row === undefined) throw notFound('withdrawal');
    return withdrawalView(row);
  }

  /** The owners' request for a withdrawal that awaits their signatures, or null. */
  const ownersRequest = (transactionId: string) =>
    options.owners?.requestFor(transactionId) ?? Promise.resolve(null);

  return { ...createAddressBook(ctx, options.delayMs), withdraw, list, get, ownersRequest };
}

/** The owner's withdrawal address book: an address added now can be withdrawn to once `delayMs` has passed. */
function createAddressBook(ctx: ServiceContext, delayMs: number) {
  const { store, writer, clock } = ctx;

  async function addAddress(userId: string, input: { address: string; label: string }) {
    const nowMs = clock.nowMs();
    const master = await masterWalletOf(store.db, userId);
    if (master.address === input.address) throw invalid('address is this account’s own master wallet');
    const row: WithdrawalAddressesTable = {
      id: newId('wad'),
      user_id: userId,
      address: input.address,
      label: input.label,
      activates_at_ms: BigInt(nowMs + delayMs),
      created_at_ms: BigInt(nowMs),
    };
    const view = addressView(row, nowMs);
    const added = await writer.run(async (trx) => {
      await lockOwnerRow(trx, 'users', userId);
      const existing = await trx
        .selectFrom('withdrawal_addresses')
        .select(['address'])
        .where('user_id', '=', userId)
        .execute();
      if (existing.some((e) => e.address === input.address)) return 'duplicate' as const;
      if (existing.length >= WITHDRAWAL_ADDRESSES_PER_USER_MAX) return 'full' as const;
      await trx.insertInto('withdrawal_addresses').values(row).execute();
      // The owner hears of every new address while there is still time to remove it.
      await emitEvent(trx, { userId, type: 'withdrawal_address.added', data: () => view, nowMs }, ctx.events);
      return 'added' as const;
    });
    if (added === 'duplicate') throw new AppError('INVALID_STATE', 'this address is already in the book');
    if (added === 'full')
      throw invalid(`a book holds at most ${WITHDRAWAL_ADDRESSES_PER_USER_MAX} addresses`);
    return view;
  }

  async function listAddresses(userId: string) {
    const rows = await store.db
      .selectFrom('withdrawal_addresses')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at_ms', 'desc')
      .orderBy('id', 'desc')
      .execute();
    const nowMs = clock.nowMs();
    return { items: rows.map((r) => addressView(r, nowMs)) };
  }

  async function removeAddress(userId: string, id: string) {
    const removed = await writer.run((trx) =>
      trx
        .deleteFrom('withdrawal_addresses')
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst(),
    );
    if (removed.numDeletedRows !== 1n) throw notFound('withdrawal address');
    return { id, deleted: true as const };
  }

  return { addAddress, listAddresses, removeAddress };
}

export type WithdrawalService = ReturnType<typeof createWithdrawalService>;

/** The answer of POST /wallet/withdrawals, from the decided (or replayed) outcome. */
export function withdrawalAnswer(data: WithdrawalData, txHash: string | null = null) {
  return {
    id: data.id,
    toAddress: toChecksumAddress(data.toAddress),
    amount: formatMicros(BigInt(data.amountMicros)),
    memo: data.memo,
    status: data.status,
    txHash,
    rail: data.rail,
    createdAt: isoFromMs(data.nowMs),
  };
}

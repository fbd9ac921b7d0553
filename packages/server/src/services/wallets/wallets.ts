// Master and agent wallets: creation, reads, renaming, freezing, and the two owner-driven movements between
// them (fund: master -> agent, withdraw: agent -> master). Every movement goes through the ledger writer.
import type { Kysely } from 'kysely';
import { newId } from '../../domain/ids.ts';
import type { MoveCommand } from '../../domain/money/movement-batch.ts';
import type { Outcome } from '../../domain/outcome.ts';
import { invalid } from '../../errors.ts';
import { createWalletAccounts } from '../../ledger/ledger.ts';
import { lockOwnerRow } from '../../store/locks.ts';
import type { Database, WalletKind } from '../../store/schema.ts';
import { type Page, pageOf, type ServiceContext } from '../context.ts';
import type { MovementResult } from '../money/commands/movement.ts';
import { type IdempotencyRequest, submitCommand } from '../money/idempotency.ts';
import { emitEvent } from '../webhooks/webhook-events.ts';
import type { AddressSource } from './addresses.ts';
import { masterWalletOf, ownedWallet, type WalletRow } from './wallet-rows.ts';
import { agentWalletView, masterWalletView } from './wallet-views.ts';

export const AGENT_WALLETS_PER_USER_MAX = 1_000;

export async function createMasterWallet(
  trx: Kysely<Database>,
  input: { userId: string; nowMs: number; addresses: AddressSource },
): Promise<WalletRow> {
  return insertWallet(trx, { ...input, kind: 'master', label: null });
}

async function insertWallet(
  trx: Kysely<Database>,
  input: { userId: string; nowMs: number; addresses: AddressSource; kind: WalletKind; label: string | null },
): Promise<WalletRow> {
  const id = newId('wal');
  const { address, derivationIndex } = await input.addresses.allocate(trx, id);
  const row: WalletRow = {
    id,
    user_id: input.userId,
    kind: input.kind,
    label: input.label,
    address,
    frozen_at_ms: null,
    frozen_reason: null,
    version: 0n,
    spent_micros: 0n,
    derivation_index: derivationIndex,
    created_at_ms: BigInt(input.nowMs),
    updated_at_ms: BigInt(input.nowMs),
  };
  await trx.insertInto('wallets').values(row).execute();
  await createWalletAccounts(trx, id, input.kind === 'agent');
  return row;
}

export interface WalletService {
  master(userId: string): Promise<WalletRow>;
  /** The master wallet as the REST API shows it (its available balance read now). */
  masterView(row: WalletRow): Promise<Awaited<ReturnType<typeof masterWalletView>>>;
  /** An agent wallet of the tenant; another tenant's is NOT_FOUND. */
  agent(userId: string, walletId: string): Promise<WalletRow>;
  createAgent(userId: string, label: string): Promise<WalletRow>;
  listAgents(userId: string, page: Page): Promise<{ rows: WalletRow[]; total: number }>;
  rename(userId: string, walletId: string, label: string): Promise<WalletRow>;
  setFrozen(userId: string, walletId: string, frozen: boolean): Promise<WalletRow>;
  move(input: MoveInput): Promise<{ outcome: Outcome<MovementResult>; replayed: boolean }>;
}

export interface MoveInput {
  direction: 'fund' | 'withdraw';
  userId: string;
  walletId: string;
  amountMicros: bigint;
  idempotency: IdempotencyRequest | null;
}

export function createWalletService(ctx: ServiceContext, addresses: AddressSource): WalletService {
  const { store, writer, clock } = ctx;

  async function createAgent(userId: string, label: string): Promise<WalletRow> {
    const nowMs = clock.nowMs();
    return writer.run((trx) => insertAgentWallet(trx, { userId, nowMs, addresses, label }));
  }

  async function listAgents(userId: string, page: Page) {
    const base = store.db.selectFrom('wallets').where('user_id', '=', userId).where('kind', '=', 'agent');
    const { rows, total } = await pageOf(base, page);
    return { rows, total };
  }

  async function rename(userId: string, walletId: string, label: string): Promise<WalletRow> {
    await ownedWallet(store.db, userId, walletId, 'agent');
    await store.db
      .updateTable('wallets')
      .set({ label, updated_at_ms: BigInt(clock.nowMs()) })
      .where('id', '=', walletId)
      .execute();
    return ownedWallet(store.db, userId, walletId, 'agent');
  }

  async function setFrozen(userId: string, walletId: string, frozen: boolean): Promise<WalletRow> {
    await ownedWallet(store.db, userId, walletId, 'agent');
    const nowMs = BigInt(clock.nowMs());
    await writer.run((trx) => writeFrozen(trx, { userId, walletId, frozen, nowMs }, ctx.events));
    return ownedWallet(store.db, userId, walletId, 'agent');
  }

  /** A batch command of the ledger writer, decided with the others of its batch (domain/money/movement-batch.ts). */
  function move(input: MoveInput) {
    const command: MoveCommand = {
      kind: input.direction,
      userId: input.userId,
      walletId: input.walletId,
      amountMicros: input.amountMicros,
      idempotency: input.idempotency,
      nowMs: clock.nowMs(),
    };
    return submitCommand(writer, command, {
      wallets: [input.walletId],
      mastersOf: [input.userId],
    });
  }

  return {
    master: (userId) => masterWalletOf(store.db, userId),
    masterView: (row) => masterWalletView(store.db, row),
    agent: (userId, walletId) => ownedWallet(store.db, userId, walletId, 'agent'),
    createAgent,
    listAgents,
    rename,
    setFrozen,
    move,
  };
}

/** Under the user's lock, so the count limit holds under concurrent creates. */
async function insertAgentWallet(
  trx: Kysely<Database>,
  input: { userId: string; nowMs: number; addresses: AddressSource; label: string },
): Promise<WalletRow> {
  await lockOwnerRow(trx, 'users', input.userId);
  const count = await trx
    .selectFrom('wallets')
    .select((eb) => eb.fn.countAll<bigint>().as('n'))
    .where('user_id', '=', input.userId)
    .where('kind', '=', 'agent')
    .executeTakeFirstOrThrow();
  if (Number(count.n) >= AGENT_WALLETS_PER_USER_MAX) {
    throw invalid(`a user can have at most ${AGENT_WALLETS_PER_USER_MAX} agent wallets`);
  }
  return insertWallet(trx, { ...input, kind: 'agent' });
}

/**
 * Freezing twice keeps the first freeze time; unfreezing an unfrozen wallet changes nothing (and reports
 * nothing). Unfrozen by the owner: the denials that tripped an auto_freeze are answered, and count no more.
 */
async function writeFrozen(
  trx: Kysely<Database>,
  { userId, walletId, frozen, nowMs }: { userId: string; walletId: string; frozen: boolean; nowMs: bigint },
  events: ServiceContext['events'],
): Promise<void> {
  const changed = await trx
    .updateTable('wallets')
    .set({ frozen_at_ms: frozen ? nowMs : null, frozen_reason: null, updated_at_ms: nowMs })
    .where('id', '=', walletId)
    .where('frozen_at_ms', frozen ? 'is' : 'is not', null)
    .executeTakeFirst();
  if (changed.numUpdatedRows === 0n) return;
  if (!frozen) await trx.deleteFrom('payment_denials').where('wallet_id', '=', walletId).execute();
  await emitEvent(
    trx,
    {
      userId,
      type: frozen ? 'wallet.frozen' : 'wallet.unfrozen',
      data: async () =>
        agentWalletView(trx, await ownedWallet(trx, userId, walletId, 'agent'), Number(nowMs)),
      nowMs: Number(nowMs),
    },
    events,
  );
}

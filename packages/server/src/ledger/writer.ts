// The single entry point for every write that moves money. An operation is a function run inside a
// database transaction; the writer decides how transactions are committed:
// - batch (SQLite): operations that arrive together run in one BEGIN IMMEDIATE … COMMIT — one fsync for the
//   whole batch (group commit). No caller is answered before the COMMIT that made its work durable.
// - concurrent (PostgreSQL): operations that declare the wallets they write are batched across wallets; each
//   batch locks all of them in one ordered statement, then commits once; batchesInFlightMax batches (1 by
//   default, LEDGER_BATCHES_IN_FLIGHT) run side by side on the pool, never two on one wallet. Row locks still
//   serialise across instances, and cannot deadlock.
// Operations decide before they write and report refusals as outcomes, so a batch runs without savepoints; an
// operation that throws rolls its batch back, which is then re-run with a savepoint per operation so that the
// failure stays its own.
import { type Kysely, type Selectable, sql } from 'kysely';
import { AppError, assert } from '../errors.ts';
import type { Store } from '../store/db.ts';
import { isConnectionFailure, isRetryableConflict } from '../store/errors.ts';
import { lockKeys, type RunOptions, takeBatch } from './lock-keys.ts';

export { lockKeys, type RunOptions, takeBatch } from './lock-keys.ts';

import type { Database, WalletsTable } from '../store/schema.ts';

export type WriteOp<T> = (trx: Kysely<Database>) => Promise<T>;

/** How one command ended: the executor's answer, or what deciding it threw (a thrown value has no type). */
export type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };

/**
 * Decides and writes many commands at once (batched payments), given the wallet rows the batch locked
 * (PostgreSQL) or null (SQLite); one answer per command, in order. `C` is the command type the executor
 * accepts and `R` its answer: the writer only queues them, so both stay typed from `submit` to the executor.
 */
export type CommandExecutor<C, R> = (
  trx: Kysely<Database>,
  commands: readonly C[],
  locked: readonly Selectable<WalletsTable>[] | null,
) => Promise<Settled<R>[]>;

/**
 * How an item of a batch ended once its transaction ran: `settle` answers its caller and is called only after
 * the COMMIT (a rolled-back run's settles are dropped), or the error it is refused with.
 */
type Done = { ok: true; settle: () => void } | { ok: false; error: unknown };

/** The writer as operations see it (audit lines, the rail's books): what needs no command executor. */
export interface LedgerWriter {
  run<T>(op: WriteOp<T>, options?: RunOptions): Promise<T>;
  /** Operations waiting or in flight (for metrics). */
  queueLength(): number;
  /** Stops accepting work and resolves once everything queued is committed or failed. */
  close(): Promise<void>;
}

/** The writer with its command executor: `C` in, `R` out, decided with the rest of its batch in one pass. */
export interface CommandWriter<C, R> extends LedgerWriter {
  submit(command: C, options: RunOptions): Promise<R>;
}

export interface WriterOptions<C, R> {
  mode: 'batch' | 'concurrent';
  /** Operations per batch commit: bounds how long one commit holds the write lock. */
  batchSizeMax: number;
  /** Operations waiting or in flight; beyond it a request is refused with 503 instead of queueing forever. */
  queueLengthMax: number;
  /** PostgreSQL: batches committing at once, each on its own pooled connection. */
  batchesInFlightMax: number;
  /** Attempts for an operation PostgreSQL aborted to break a deadlock. */
  conflictAttemptsMax: number;
  /** Told the size of every batch committed (for metrics). */
  onBatch: (size: number) => void;
  executeCommands: CommandExecutor<C, R>;
}

/**
 * What a queued item does: an operation, run in the transaction, gives back how to answer its caller (so its
 * value keeps its own type without the queue knowing it); a command is answered by the executor.
 */
type Work<C, R> =
  | { kind: 'op'; op: (trx: Kysely<Database>) => Promise<() => void> }
  | { kind: 'command'; command: C; resolve: (value: R) => void };

interface Queued<C, R> {
  work: Work<C, R>;
  reject: (error: unknown) => void;
  /** Lock keys (see lockKeys); empty on SQLite, whose one writer needs none. */
  keys: string[];
  locks: RunOptions;
}

/** An operation as queued work: its value is handed to `resolve` once the batch committed. */
function opWork<C, R, T>(op: WriteOp<T>, resolve: (value: T) => void): Work<C, R> {
  return {
    kind: 'op',
    op: async (trx) => {
      const value = await op(trx);
      return () => resolve(value);
    },
  };
}

export function createLedgerWriter<C, R>(store: Store, options: WriterOptions<C, R>): CommandWriter<C, R> {
  return options.mode === 'batch' ? new BatchWriter(store, options) : new ConcurrentWriter(store, options);
}

const queueFull = () => new AppError('SERVICE_UNAVAILABLE', 'the ledger is busy; retry shortly');
const closedError = () => new AppError('SERVICE_UNAVAILABLE', 'the service is shutting down');

class BatchWriter<C, R> implements CommandWriter<C, R> {
  private readonly store: Store;
  private readonly options: WriterOptions<C, R>;
  private readonly queue: Queued<C, R>[] = [];
  private flushing = false;
  private scheduled = false;
  private closed = false;
  private drained: (() => void) | undefined;

  constructor(store: Store, options: WriterOptions<C, R>) {
    this.store = store;
    this.options = options;
  }

  run<T>(op: WriteOp<T>): Promise<T> {
    return this.enqueue<T>((resolve) => opWork(op, resolve));
  }

  submit(command: C): Promise<R> {
    return this.enqueue<R>((resolve) => ({ kind: 'command', command, resolve }));
  }

  private enqueue<T>(workOf: (resolve: (value: T) => void) => Work<C, R>): Promise<T> {
    if (this.closed) return Promise.reject(closedError());
    if (this.queue.length >= this.options.queueLengthMax) return Promise.reject(queueFull());
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work: workOf(resolve), reject, keys: [], locks: {} });
      this.schedule();
    });
  }

  queueLength(): number {
    return this.queue.length;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (!this.flushing && this.queue.length === 0) return;
    await new Promise<void>((resolve) => {
      this.drained = resolve;
    });
  }

  // setImmediate lets every request that arrived in this turn of the event loop join the batch.
  private schedule(): void {
    if (this.flushing || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    this.flushing = true;
    const batch = this.queue.splice(0, this.options.batchSizeMax);
    this.options.onBatch(batch.length);
    try {
      const outcomes = await this.commitBatch(batch);
      for (const [i, item] of batch.entries()) settle(item, outcomes[i]!);
    } catch (error) {
      for (const item of batch) item.reject(error);
    } finally {
      this.flushing = false;
      if (this.queue.length > 0) this.schedule();
      else if (this.closed) this.drained?.();
    }
  }

  /** One BEGIN IMMEDIATE … COMMIT for the batch; see runOps for what happens when an operation throws. */
  private async commitBatch(batch: Queued<C, R>[]): Promise<Done[]> {
    let mode: RunMode = batch.length === 1 ? 'alone' : 'together';
    for (;;) {
      try {
        return await this.store.db
          .connection()
          .execute((conn) =>
            inImmediateTransaction(conn, () => runOps(conn, batch, mode, this.options.executeCommands, null)),
          );
      } catch (error) {
        if (!(error instanceof OperationFailed)) throw error;
        if (mode === 'alone') return [{ ok: false, error: error.cause }];
        mode = 'savepoints';
      }
    }
  }
}

async function inImmediateTransaction<T>(conn: Kysely<Database>, body: () => Promise<T>): Promise<T> {
  await sql`begin immediate`.execute(conn);
  try {
    const result = await body();
    await sql`commit`.execute(conn);
    return result;
  } catch (error) {
    await sql`rollback`.execute(conn).catch(() => undefined);
    throw error;
  }
}

async function runInSavepoint(
  conn: Kysely<Database>,
  op: (trx: Kysely<Database>) => Promise<() => void>,
): Promise<Done> {
  await sql`savepoint op`.execute(conn);
  try {
    const settle = await op(conn);
    await sql`release savepoint op`.execute(conn);
    return { ok: true, settle };
  } catch (error) {
    // A deadlock or serialisation failure is not this operation's outcome: the batch's other row locks are part
    // of the cycle, so the whole batch is re-run (bounded), never answered as this operation's 500.
    if (isRetryableConflict(error)) throw error;
    await sql`rollback to savepoint op`.execute(conn);
    await sql`release savepoint op`.execute(conn);
    return { ok: false, error };
  }
}

/** A short random pause before re-running a deadlocked transaction, so the two sides do not collide again. */
const CONFLICT_BACKOFF_MAX_MS = 20;
function conflictBackoff(attempt: number): Promise<void> {
  const delayMs = Math.random() * Math.min(CONFLICT_BACKOFF_MAX_MS, 5 * attempt);
  return new Promise((resolve) => setTimeout(resolve, delayMs));
}

function settle<C, R>(item: Queued<C, R>, done: Done): void {
  if (done.ok) done.settle();
  else item.reject(done.error);
}

class ConcurrentWriter<C, R> implements CommandWriter<C, R> {
  private readonly store: Store;
  private readonly options: WriterOptions<C, R>;
  /** Operations that declared what they write, waiting for a batch, in arrival order. */
  private queue: Queued<C, R>[] = [];
  /** Wallet keys of the batches in flight: an operation on one of them waits for the next batch. */
  private readonly busyKeys = new Set<string>();
  private batchesInFlight = 0;
  private dispatchScheduled = false;
  private inFlight = 0;
  private closed = false;
  private drained: (() => void) | undefined;

  constructor(store: Store, options: WriterOptions<C, R>) {
    this.store = store;
    this.options = options;
  }

  run<T>(op: WriteOp<T>, options: RunOptions = {}): Promise<T> {
    // An operation that declares no wallet runs alone on the pool; the rest waits for a batch.
    if (lockKeys(options).length === 0) {
      return this.admit(() => {
        this.options.onBatch(1);
        return runAlone(this.store, op, this.options.conflictAttemptsMax);
      });
    }
    return this.admit(() => this.enqueue<T>((resolve) => opWork(op, resolve), options));
  }

  submit(command: C, options: RunOptions): Promise<R> {
    return this.admit(() => this.enqueue<R>((resolve) => ({ kind: 'command', command, resolve }), options));
  }

  /** Counts the work in flight (bounded by queueLengthMax) for as long as `body` runs. */
  private async admit<T>(body: () => Promise<T>): Promise<T> {
    if (this.closed) throw closedError();
    if (this.inFlight >= this.options.queueLengthMax) throw queueFull();
    this.inFlight += 1;
    try {
      return await body();
    } finally {
      this.inFlight -= 1;
      if (this.closed && this.inFlight === 0) this.drained?.();
    }
  }

  private enqueue<T>(workOf: (resolve: (value: T) => void) => Work<C, R>, options: RunOptions): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work: workOf(resolve), reject, keys: lockKeys(options), locks: options });
      this.scheduleDispatch();
    });
  }

  queueLength(): number {
    return this.inFlight;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.inFlight === 0) return;
    await new Promise<void>((resolve) => {
      this.drained = resolve;
    });
  }

  // setImmediate lets every request that arrived in this turn of the event loop join the batch.
  private scheduleDispatch(): void {
    if (this.dispatchScheduled) return;
    this.dispatchScheduled = true;
    setImmediate(() => {
      this.dispatchScheduled = false;
      this.dispatch();
    });
  }

  /** Starts batches while connections are free for them and queued operations touch no busy wallet. */
  private dispatch(): void {
    while (this.batchesInFlight < this.options.batchesInFlightMax) {
      const { batch, rest } = takeBatch(this.queue, this.busyKeys, this.options.batchSizeMax);
      if (batch.length === 0) return;
      this.queue = rest;
      const keys = new Set(batch.flatMap((item) => item.keys));
      for (const key of keys) this.busyKeys.add(key);
      this.batchesInFlight += 1;
      this.options.onBatch(batch.length);
      void commitLockedBatch(this.store, batch, this.options)
        .then((failure) => {
          // The database is unreachable or hung: what queued behind this batch would wait a whole further
          // timeout only to fail the same way. Refuse it now (never attempted, so nothing is half-done), which
          // keeps every answer within one connect + statement bound.
          if (failure !== undefined && isConnectionFailure(failure)) this.refuseQueued(failure);
        })
        .finally(() => {
          for (const key of keys) this.busyKeys.delete(key);
          this.batchesInFlight -= 1;
          this.dispatch();
        });
    }
  }

  /** Rejects with the batch's own error: the HTTP and MCP layers answer it as 503 SERVICE_UNAVAILABLE. */
  private refuseQueued(cause: unknown): void {
    const queued = this.queue;
    this.queue = [];
    for (const item of queued) item.reject(cause);
  }
}

async function runAlone<T>(store: Store, op: WriteOp<T>, attemptsMax: number): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await store.db.transaction().execute((trx) => op(trx));
    } catch (error) {
      if (!isRetryableConflict(error) || attempt >= attemptsMax) throw error;
      await conflictBackoff(attempt);
    }
  }
}

/**
 * One transaction for the batch: every wallet it writes is locked first, in one statement in id order, so two
 * batches (on this instance or another) never wait on each other's rows in opposite orders. The operations then
 * run one after another without savepoints; if one throws, the batch is rolled back and run again with a
 * savepoint per operation, so the others still commit. A deadlock or serialisation failure re-runs the batch
 * (bounded), never becomes an operation's 500. Resolves with the error the whole batch failed with, if it did.
 */
async function commitLockedBatch<C, R>(
  store: Store,
  batch: Queued<C, R>[],
  options: WriterOptions<C, R>,
): Promise<unknown> {
  let mode: RunMode = batch.length === 1 ? 'alone' : 'together';
  for (let attempt = 1; ; ) {
    try {
      const outcomes = await store.db.transaction().execute(async (trx) => {
        const locked = await lockBatchWallets(trx, batch);
        return runOps(trx, batch, mode, options.executeCommands, locked);
      });
      for (const [i, item] of batch.entries()) settle(item, outcomes[i]!);
      return;
    } catch (error) {
      if (error instanceof OperationFailed) {
        if (mode === 'alone') {
          batch[0]!.reject(error.cause);
          return;
        }
        mode = 'savepoints';
        continue;
      }
      if (isRetryableConflict(error) && attempt < options.conflictAttemptsMax) {
        attempt += 1;
        await conflictBackoff(attempt);
        continue;
      }
      for (const item of batch) item.reject(error);
      return error;
    }
  }
}

/** `alone`/`together`: no savepoints, any failure aborts the transaction; `savepoints`: one per operation. */
type RunMode = 'alone' | 'together' | 'savepoints';

/** An operation threw while running without a savepoint: the transaction is rolled back. */
class OperationFailed extends Error {
  constructor(cause: unknown) {
    super('an operation of the batch failed', { cause });
  }
}

/**
 * Runs the batch: its commands decided together by the executor, then its operations one by one. Without
 * savepoints anything thrown aborts the transaction (OperationFailed: the batch is re-run with savepoints).
 */
async function runOps<C, R>(
  trx: Kysely<Database>,
  batch: Queued<C, R>[],
  mode: RunMode,
  executor: CommandExecutor<C, R>,
  locked: readonly Selectable<WalletsTable>[] | null,
): Promise<Done[]> {
  if (mode === 'savepoints') {
    const done: Done[] = [];
    // Earlier operations changed rows the lock read: each command re-reads its wallets (still locked).
    for (const item of batch) done.push(await runInSavepoint(trx, asOp(item.work, executor)));
    return done;
  }
  const done: Done[] = new Array(batch.length);
  const commands = batch.flatMap((item, i) => (item.work.kind === 'command' ? [{ i, work: item.work }] : []));
  if (commands.length > 0) {
    const answers = await failAsOperation(() =>
      executor(
        trx,
        commands.map((c) => c.work.command),
        locked,
      ),
    );
    assert(answers.length === commands.length, 'the executor answers every command of the batch');
    for (const [n, { i, work }] of commands.entries()) done[i] = answered(work.resolve, answers[n]!);
  }
  for (const [i, item] of batch.entries()) {
    const work = item.work;
    if (work.kind === 'command') continue;
    done[i] = { ok: true, settle: await failAsOperation(() => work.op(trx)) };
  }
  return done;
}

/** A command's answer as the batch's outcome: its caller is answered after the commit. */
function answered<R>(resolve: (value: R) => void, answer: Settled<R>): Done {
  if (!answer.ok) return answer;
  return { ok: true, settle: () => resolve(answer.value) };
}

async function failAsOperation<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isRetryableConflict(error) || isConnectionFailure(error)) throw error;
    throw new OperationFailed(error);
  }
}

/** Queued work as an operation of its own (the savepoint fallback decides each command alone). */
function asOp<C, R>(
  work: Work<C, R>,
  executor: CommandExecutor<C, R>,
): (trx: Kysely<Database>) => Promise<() => void> {
  if (work.kind === 'op') return work.op;
  return async (trx) => {
    const answers = await executor(trx, [work.command], null);
    assert(answers.length === 1, 'the executor answers the one command it was given');
    const answer = answers[0]!;
    if (!answer.ok) throw answer.error;
    return () => work.resolve(answer.value);
  };
}

/** One ordered locking statement for every wallet the batch writes (agents, masters, recipients by address). */
async function lockBatchWallets<C, R>(
  trx: Kysely<Database>,
  batch: Queued<C, R>[],
): Promise<Selectable<WalletsTable>[]> {
  const walletIds = [...new Set(batch.flatMap((item) => item.locks.wallets ?? []))];
  const masterUserIds = [...new Set(batch.flatMap((item) => item.locks.mastersOf ?? []))];
  const addresses = [...new Set(batch.flatMap((item) => item.locks.addresses ?? []))];
  const locked = await sql<Selectable<WalletsTable>>`select * from wallets
    where id = any(${walletIds}) or (kind = 'master' and user_id = any(${masterUserIds})) or address = any(${addresses})
    order by id for update`.execute(trx);
  return locked.rows;
}

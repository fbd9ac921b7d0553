// The single entry point for every write that moves money. An operation is a function run inside a
// database transaction; the writer decides how transactions are committed:
// - batch (SQLite): operations that arrive together run in one BEGIN IMMEDIATE … COMMIT — one fsync for the
//   whole batch (group commit). Each runs inside its own SAVEPOINT, so one operation failing rolls back only
//   itself. No caller is answered before the COMMIT that made its work durable.
// - concurrent (PostgreSQL): operations on different wallets run side by side on the pool; operations on one
//   wallet queue in memory and commit together in one transaction per batch (SAVEPOINT each), so a hot wallet
//   neither starves the pool nor pays a commit per payment. Row locks still serialise across instances.
import { type Kysely, sql } from 'kysely';
import { AppError } from '../errors.ts';
import type { Store } from '../store/db.ts';
import { isConnectionFailure, isRetryableConflict } from '../store/errors.ts';
import type { Database } from '../store/schema.ts';

export type WriteOp<T> = (trx: Kysely<Database>) => Promise<T>;

export interface RunOptions {
  /**
   * The wallet whose row lock the operation takes first (PostgreSQL). Operations on one wallet wait for each
   * other in memory, not on pooled connections blocked by one row lock (measured: 500 payments on one wallet
   * exhausted a pool of 20 and timed out), and commit together. The row lock still serialises across instances.
   */
  serializeOn?: string;
}

export interface LedgerWriter {
  run<T>(op: WriteOp<T>, options?: RunOptions): Promise<T>;
  /** Operations waiting or in flight (for metrics). */
  queueLength(): number;
  /** Stops accepting work and resolves once everything queued is committed or failed. */
  close(): Promise<void>;
}

export interface WriterOptions {
  mode: 'batch' | 'concurrent';
  /** Operations per batch commit: bounds how long one commit holds the write lock. */
  batchSizeMax: number;
  /** Operations waiting or in flight; beyond it a request is refused with 503 instead of queueing forever. */
  queueLengthMax: number;
  /** Attempts for an operation PostgreSQL aborted to break a deadlock. */
  conflictAttemptsMax: number;
  /** Told the size of every batch committed (for metrics). */
  onBatch: (size: number) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Queued {
  op: WriteOp<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export function createLedgerWriter(store: Store, options: WriterOptions): LedgerWriter {
  return options.mode === 'batch' ? new BatchWriter(store, options) : new ConcurrentWriter(store, options);
}

const queueFull = () => new AppError('SERVICE_UNAVAILABLE', 'the ledger is busy; retry shortly');
const closedError = () => new AppError('SERVICE_UNAVAILABLE', 'the service is shutting down');

class BatchWriter implements LedgerWriter {
  private readonly store: Store;
  private readonly options: WriterOptions;
  private readonly queue: Queued[] = [];
  private flushing = false;
  private scheduled = false;
  private closed = false;
  private drained: (() => void) | undefined;

  constructor(store: Store, options: WriterOptions) {
    this.store = store;
    this.options = options;
  }

  run<T>(op: WriteOp<T>): Promise<T> {
    if (this.closed) return Promise.reject(closedError());
    if (this.queue.length >= this.options.queueLengthMax) return Promise.reject(queueFull());
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ op, resolve: resolve as (value: unknown) => void, reject });
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

  private commitBatch(batch: Queued[]): Promise<Outcome[]> {
    return this.store.db.connection().execute(async (conn) => {
      await sql`begin immediate`.execute(conn);
      try {
        // Alone in its batch, an operation needs no savepoint: its failure rolls back the whole transaction.
        if (batch.length === 1) {
          const outcome = await runBare(conn, batch[0]!.op);
          await sql`${sql.raw(outcome.ok ? 'commit' : 'rollback')}`.execute(conn);
          return [outcome];
        }
        const outcomes: Outcome[] = [];
        for (const item of batch) outcomes.push(await runInSavepoint(conn, item.op));
        await sql`commit`.execute(conn);
        return outcomes;
      } catch (error) {
        await sql`rollback`.execute(conn).catch(() => undefined);
        throw error;
      }
    });
  }
}

async function runBare(conn: Kysely<Database>, op: WriteOp<unknown>): Promise<Outcome> {
  try {
    return { ok: true, value: await op(conn) };
  } catch (error) {
    return { ok: false, error };
  }
}

async function runInSavepoint(conn: Kysely<Database>, op: WriteOp<unknown>): Promise<Outcome> {
  await sql`savepoint op`.execute(conn);
  try {
    const value = await op(conn);
    await sql`release savepoint op`.execute(conn);
    return { ok: true, value };
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

function settle(item: Queued, outcome: Outcome): void {
  if (outcome.ok) item.resolve(outcome.value);
  else item.reject(outcome.error);
}

class ConcurrentWriter implements LedgerWriter {
  private readonly store: Store;
  private readonly options: WriterOptions;
  /** Operations waiting per wallet; a wallet's lane runs one batch transaction at a time. */
  private readonly lanes = new Map<string, Queued[]>();
  private readonly busyLanes = new Set<string>();
  private inFlight = 0;
  private closed = false;
  private drained: (() => void) | undefined;

  constructor(store: Store, options: WriterOptions) {
    this.store = store;
    this.options = options;
  }

  async run<T>(op: WriteOp<T>, options: RunOptions = {}): Promise<T> {
    if (this.closed) throw closedError();
    if (this.inFlight >= this.options.queueLengthMax) throw queueFull();
    this.inFlight += 1;
    try {
      if (options.serializeOn === undefined) {
        this.options.onBatch(1);
        return await this.runAlone(op);
      }
      return await this.enqueue(options.serializeOn, op);
    } finally {
      this.inFlight -= 1;
      if (this.closed && this.inFlight === 0) this.drained?.();
    }
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

  private async runAlone<T>(op: WriteOp<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.store.db.transaction().execute((trx) => op(trx));
      } catch (error) {
        if (!isRetryableConflict(error) || attempt >= this.options.conflictAttemptsMax) throw error;
        await conflictBackoff(attempt);
      }
    }
  }

  /**
   * Operations on one wallet queue in memory (not on pooled connections waiting for the wallet's row lock)
   * and those that queued together commit together: group commit per wallet, wallets side by side.
   */
  private enqueue<T>(key: string, op: WriteOp<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const lane = this.lanes.get(key) ?? [];
      lane.push({ op, resolve: resolve as (value: unknown) => void, reject });
      this.lanes.set(key, lane);
      this.pump(key);
    });
  }

  private pump(key: string): void {
    if (this.busyLanes.has(key)) return;
    const lane = this.lanes.get(key);
    if (lane === undefined || lane.length === 0) {
      this.lanes.delete(key);
      return;
    }
    const batch = lane.splice(0, this.options.batchSizeMax);
    this.options.onBatch(batch.length);
    this.busyLanes.add(key);
    void this.commitBatch(batch)
      .then((failure) => {
        // The database is unreachable or hung: what queued behind this batch would wait a whole further
        // timeout only to fail the same way. Refuse it now (never attempted, so nothing is half-done), which
        // keeps every answer within one connect + statement bound.
        if (failure !== undefined && isConnectionFailure(failure)) this.refuseQueued(key, failure);
      })
      .finally(() => {
        this.busyLanes.delete(key);
        this.pump(key);
      });
  }

  /** Rejects with the batch's own error: the HTTP and MCP layers answer it as 503 SERVICE_UNAVAILABLE. */
  private refuseQueued(key: string, cause: unknown): void {
    const queued = this.lanes.get(key)?.splice(0) ?? [];
    for (const item of queued) {
      item.reject(cause);
    }
  }

  /**
   * One transaction for the batch, a SAVEPOINT per operation; a deadlock aborts and re-runs the batch.
   * Resolves with the error the whole batch failed with, if it did (each caller was rejected with it).
   */
  private async commitBatch(batch: Queued[]): Promise<unknown> {
    if (batch.length === 1) {
      const item = batch[0]!;
      // No savepoint needed when alone.
      return this.runAlone(item.op).then(
        (value) => void item.resolve(value),
        (error: unknown) => {
          item.reject(error);
          return error;
        },
      );
    }
    for (let attempt = 1; ; attempt += 1) {
      try {
        const outcomes = await this.store.db.transaction().execute(async (trx) => {
          const results: Outcome[] = [];
          for (const item of batch) results.push(await runInSavepoint(trx, item.op));
          return results;
        });
        for (const [i, item] of batch.entries()) settle(item, outcomes[i]!);
        return;
      } catch (error) {
        if (isRetryableConflict(error) && attempt < this.options.conflictAttemptsMax) {
          await conflictBackoff(attempt);
          continue;
        }
        for (const item of batch) item.reject(error);
        return error;
      }
    }
  }
}

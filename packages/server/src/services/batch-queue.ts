// The queue both sides of group commit share: concurrent reads (wallets/read-batch.ts) and small writes
// (group-commit.ts) wait here and leave in batches. An item joins the next batch to be sent, never one already
// sent; at most maxInFlight batches are out at once; past maxWaiting an item is refused at once (503) rather than
// queue behind a database that stopped answering; a batch that fails because the database is unreachable fails
// everything still waiting with it (never sent, so nothing is lost: it would only wait a further timeout).
import { AppError, assert } from '../errors.ts';

export interface BatchQueueOptions {
  /** Items in one batch. */
  maxBatch: number;
  /** Batches sent and not yet answered. */
  maxInFlight: number;
  /** Items waiting for a batch; beyond it an item is refused at once. */
  maxWaiting: number;
  /** A failure that says the database is unreachable: the items still waiting fail with it at once. */
  isUnreachable: (error: unknown) => boolean;
}

/** An item waiting in the queue and how to answer it. */
export interface Queued<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

/** Answers every item of its batch; what it throws fails those of them not answered yet. */
export type SendBatch<I, O> = (batch: Queued<I, O>[]) => Promise<void>;

const busy = () => new AppError('SERVICE_UNAVAILABLE', 'the database is busy; retry shortly');

/** `enqueue(item)` resolves to what the batch it joined answered for it. */
export function createBatchQueue<I, O>(
  send: SendBatch<I, O>,
  options: BatchQueueOptions,
): (item: I) => Promise<O> {
  assert(
    options.maxBatch >= 1 && options.maxInFlight >= 1 && options.maxWaiting >= options.maxBatch,
    'a batch queue needs room for one batch',
  );
  const waiting: Queued<I, O>[] = [];
  let inFlight = 0;
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    while (waiting.length > 0 && inFlight < options.maxInFlight) {
      inFlight += 1;
      const batch = waiting.splice(0, options.maxBatch);
      const done = (): void => {
        inFlight -= 1;
        schedule();
      };
      void send(batch).then(done, (error: unknown) => {
        fail(batch, error);
        done();
      });
    }
  };
  // setImmediate, not a microtask: the requests parsed in one turn of the event loop join one batch.
  const schedule = (): void => {
    if (scheduled || waiting.length === 0 || inFlight >= options.maxInFlight) return;
    scheduled = true;
    setImmediate(flush);
  };
  const fail = (batch: readonly Queued<I, O>[], error: unknown): void => {
    // An item already answered keeps its answer (a settled promise ignores the rejection).
    for (const q of batch) q.reject(error);
    if (options.isUnreachable(error)) for (const q of waiting.splice(0)) q.reject(error);
  };
  return (item) => {
    if (waiting.length >= options.maxWaiting) return Promise.reject(busy());
    return new Promise<O>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      schedule();
    });
  };
}

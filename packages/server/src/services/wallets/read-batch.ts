// Coalesces concurrent point reads into one set-based query, the read side of the writer's group commit:
// agents poll check_balance, and on PostgreSQL each read was its own round trip, statement and backend wake-up
// (measured: the database's CPU per read was half the server's). A read joins the next query to be sent, never
// one already on the wire, so it sees every commit acknowledged before it was asked — as exact as its own query.
import { AppError, assert } from '../../errors.ts';

export interface ReadBatchOptions {
  /** Keys in one query: bounds its parameters and the rows it returns. */
  maxKeys: number;
  /** Queries on the wire at once; later reads wait for one to return (and then go together). */
  maxInFlight: number;
  /**
   * Reads waiting for a query; beyond it a read is refused at once (503) rather than queue behind a database
   * that stopped answering, so a read waits at most about maxWaiting / (maxKeys × maxInFlight) query timeouts.
   */
  maxWaiting: number;
  /** A failure that says the database is unreachable: the reads still waiting fail with it at once. */
  isUnreachable: (error: unknown) => boolean;
}

const busy = () => new AppError('SERVICE_UNAVAILABLE', 'the database is busy; retry shortly');

export type LoadMany<K, V> = (keys: readonly K[]) => Promise<ReadonlyMap<K, V>>;

interface Waiting<K, V> {
  key: K;
  resolve: (value: V | undefined) => void;
  reject: (error: unknown) => void;
}

/** `read(key)` resolves to what `load` returned for that key in the query it joined (undefined: no row). */
export function createReadBatch<K, V>(
  load: LoadMany<K, V>,
  options: ReadBatchOptions,
): (key: K) => Promise<V | undefined> {
  assert(
    options.maxKeys >= 1 && options.maxInFlight >= 1 && options.maxWaiting >= options.maxKeys,
    'a read batch needs room for one query',
  );
  const waiting: Waiting<K, V>[] = [];
  let inFlight = 0;
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    while (waiting.length > 0 && inFlight < options.maxInFlight) {
      inFlight += 1;
      void send(waiting.splice(0, options.maxKeys)).finally(() => {
        inFlight -= 1;
        schedule();
      });
    }
  };
  // setImmediate, not a microtask: requests parsed in the same turn of the event loop join one query.
  const schedule = (): void => {
    if (scheduled || waiting.length === 0 || inFlight >= options.maxInFlight) return;
    scheduled = true;
    setImmediate(flush);
  };
  const send = async (batch: Waiting<K, V>[]): Promise<void> => {
    const keys = [...new Set(batch.map((w) => w.key))];
    try {
      const rows = await load(keys);
      for (const w of batch) w.resolve(rows.get(w.key));
    } catch (error) {
      for (const w of batch) w.reject(error);
      // Never attempted, so nothing is lost: they would only wait a further timeout to fail the same way.
      if (options.isUnreachable(error)) for (const w of waiting.splice(0)) w.reject(error);
    }
  };
  return (key) => {
    if (waiting.length >= options.maxWaiting) return Promise.reject(busy());
    return new Promise<V | undefined>((resolve, reject) => {
      waiting.push({ key, resolve, reject });
      schedule();
    });
  };
}

// Coalesces concurrent point reads into one set-based query, the read side of the writer's group commit:
// agents poll check_balance, and on PostgreSQL each read was its own round trip, statement and backend wake-up
// (measured: the database's CPU per read was half the server's). A read joins the next query to be sent, never
// one already on the wire, so it sees every commit acknowledged before it was asked — as exact as its own query.
import { createBatchQueue } from '../batch-queue.ts';

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

export type LoadMany<K, V> = (keys: readonly K[]) => Promise<ReadonlyMap<K, V>>;

/** `read(key)` resolves to what `load` returned for that key in the query it joined (undefined: no row). */
export function createReadBatch<K, V>(
  load: LoadMany<K, V>,
  options: ReadBatchOptions,
): (key: K) => Promise<V | undefined> {
  return createBatchQueue<K, V | undefined>(
    async (batch) => {
      const rows = await load([...new Set(batch.map((q) => q.item))]);
      for (const q of batch) q.resolve(rows.get(q.item));
    },
    { ...options, maxBatch: options.maxKeys },
  );
}

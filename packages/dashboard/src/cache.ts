// A small response cache: one entry per resource key ("wallet", "txs:<walletId>:<status>:<page>", ...).
// Views read entries through useResource(); mutations write the server's answer straight into the entries
// (no refetch); the poller invalidates what changed. In-flight loads are shared, so two views asking for the
// same thing make one request. clear() (logout) bumps a generation so late answers are dropped.
import { ApiError } from './api/errors.ts';

export interface Entry<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  /** Epoch ms of the last answer (0 = never, or marked stale). */
  fetchedAt: number;
}

type Fetcher<T> = () => Promise<T>;

const EMPTY: Entry<never> = Object.freeze({
  data: undefined,
  error: undefined,
  loading: false,
  fetchedAt: 0,
});

export class Cache {
  private readonly entries = new Map<string, Entry<unknown>>();
  private readonly listeners = new Map<string, Set<() => void>>();
  private readonly fetchers = new Map<string, Fetcher<unknown>>();
  private readonly inflight = new Map<string, Promise<void>>();
  private generation = 0;
  private readonly now: () => number;

  constructor(now: () => number = () => Date.now()) {
    this.now = now;
  }

  peek<T>(key: string): Entry<T> {
    return (this.entries.get(key) as Entry<T> | undefined) ?? EMPTY;
  }

  subscribe(key: string, listener: () => void): () => void {
    let set = this.listeners.get(key);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(key, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(key);
    };
  }

  /** Remembers how to (re)load a key, for invalidate(). */
  register<T>(key: string, fetcher: Fetcher<T>) {
    this.fetchers.set(key, fetcher as Fetcher<unknown>);
  }

  /** Loads unless a fresh answer (younger than maxAgeMs) is cached or a load is under way. */
  ensure<T>(key: string, fetcher: Fetcher<T>, maxAgeMs: number): Promise<void> {
    const entry = this.peek<T>(key);
    const running = this.inflight.get(key);
    if (running !== undefined) return running;
    if (entry.fetchedAt > 0 && this.now() - entry.fetchedAt < maxAgeMs) return Promise.resolve();
    return this.load(key, fetcher);
  }

  /** Loads now (joining a load under way). Errors are stored in the entry, never thrown. */
  load<T>(key: string, fetcher: Fetcher<T>): Promise<void> {
    const running = this.inflight.get(key);
    if (running !== undefined) return running;
    const generation = this.generation;
    this.write(key, { ...this.peek<T>(key), loading: true });
    const promise = fetcher()
      .then(
        (data) => {
          if (generation !== this.generation) return;
          this.write(key, { data, error: undefined, loading: false, fetchedAt: this.now() });
        },
        (error: unknown) => {
          if (generation !== this.generation) return;
          const apiError =
            error instanceof ApiError ? error : new ApiError('INTERNAL_ERROR', 0, String(error ?? ''));
          this.write(key, { ...this.peek<T>(key), error: apiError, loading: false, fetchedAt: this.now() });
        },
      )
      .finally(() => {
        if (this.inflight.get(key) === promise) this.inflight.delete(key);
      });
    this.inflight.set(key, promise);
    return promise;
  }

  /** Replaces a cached answer with what a mutation returned (no request). Missing entries stay missing. */
  update<T>(key: string, change: (data: T) => T) {
    const entry = this.peek<T>(key);
    if (entry.data === undefined) return;
    this.write(key, { ...entry, data: change(entry.data) });
  }

  /** Stores an answer obtained elsewhere. */
  set<T>(key: string, data: T) {
    this.write(key, { data, error: undefined, loading: false, fetchedAt: this.now() });
  }

  updateWhere<T>(prefix: string, change: (data: T, key: string) => T) {
    for (const key of this.keysWith(prefix)) this.update<T>(key, (data) => change(data, key));
  }

  /** Marks entries stale without loading: the next view that needs them loads them. */
  markStale(prefix: string, except?: string) {
    for (const key of this.keysWith(prefix)) {
      if (key === except) continue;
      const entry = this.peek(key);
      this.write(key, { ...entry, fetchedAt: 0 });
    }
  }

  /** Marks entries stale and reloads those a view is showing right now. */
  invalidate(prefix: string) {
    this.markStale(prefix);
    for (const key of this.keysWith(prefix)) {
      const fetcher = this.fetchers.get(key);
      if (fetcher !== undefined && (this.listeners.get(key)?.size ?? 0) > 0) void this.load(key, fetcher);
    }
  }

  /** Forgets everything (logout). Answers of loads still under way are dropped. */
  clear() {
    this.generation += 1;
    this.inflight.clear();
    const keys = [...this.entries.keys()];
    this.entries.clear();
    for (const key of keys) this.notify(key);
  }

  private keysWith(prefix: string): string[] {
    return [...this.entries.keys()].filter((key) => key.startsWith(prefix));
  }

  private write(key: string, entry: Entry<unknown>) {
    this.entries.set(key, entry);
    this.notify(key);
  }

  private notify(key: string) {
    for (const listener of this.listeners.get(key) ?? []) listener();
  }
}

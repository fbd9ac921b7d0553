// Sliding-log rate limiting (contract section 5): a request at `now` is accepted iff fewer than `limit`
// accepted requests have timestamps t with t > now - windowMs. Refused requests are not recorded, so a
// client hammering a full bucket does not push its own retry time further out.
import { assert } from '../errors.ts';

export interface LimitDecision {
  allowed: boolean;
  limit: number;
  /** limit minus the requests counted in the window after this one; never negative. */
  remaining: number;
  /** Whole seconds, rounded up, until the oldest counted request leaves the window; 0 when none is counted. */
  resetSeconds: number;
  /** 0 when allowed; otherwise at least 1, and a client that waits exactly this long is accepted. */
  retryAfterSeconds: number;
  /** Redis only: the shared cache-invalidation epoch read in the same round trip ('0' when unset). */
  signalEpoch?: string;
  /** Redis only: the identity of Redis's data set; it changes when Redis lost its data. */
  generation?: string;
  /** Redis only: refused because Redis lost its data within the last window (see SLIDING_LOG_LUA). */
  quarantined?: boolean;
  /** When allowed: what names this request's entry, so `release` can give its slot back. */
  entry?: string;
}

export interface LimitStore {
  hit(bucketKey: string, limit: number, windowMs: number): Promise<LimitDecision>;
  /** The decision a hit would get now, recording nothing (failed logins are counted only once they fail). */
  peek(bucketKey: string, limit: number, windowMs: number): Promise<LimitDecision>;
  /** Drops what the bucket counted (a password reset ends the lock-out its guessing earned). */
  forget(bucketKey: string): Promise<void>;
  /**
   * Gives back the slot one accepted hit took (its decision's `entry`): a code that was counted before it was
   * judged, and turned out right. An entry already gone (out of the window, forgotten) is no error.
   */
  release(bucketKey: string, entry: string): Promise<void>;
  close(): Promise<void>;
}

/** The backend of a store is down or too slow; the caller must refuse the request (fail closed). */
export class LimiterUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LimiterUnavailableError';
  }
}

// Bounds every store asserts on its inputs; the config parser keeps limits inside them.
export const HIT_LIMIT_MAX = 10_000_000;
export const WINDOW_MS_MAX = 24 * 60 * 60 * 1000;
export const BUCKET_KEY_MAX_CHARS = 1024;

export function assertHitArguments(bucketKey: string, limit: number, windowMs: number): void {
  assert(bucketKey.length > 0 && bucketKey.length <= BUCKET_KEY_MAX_CHARS, 'bucket key length out of bounds');
  assert(Number.isInteger(limit) && limit >= 1 && limit <= HIT_LIMIT_MAX, `limit out of bounds: ${limit}`);
  assert(
    Number.isInteger(windowMs) && windowMs >= 1 && windowMs <= WINDOW_MS_MAX,
    `window out of bounds: ${windowMs}`,
  );
}

/** Whole seconds, rounded up, never negative: what the RateLimit-Reset and Retry-After headers carry. */
export function ceilSeconds(durationMs: number): number {
  return durationMs <= 0 ? 0 : Math.ceil(durationMs / 1000);
}

/** When a store is full of live buckets it refuses new ones for this long rather than evict a live one. */
export const FULL_STORE_RETRY_AFTER_SECONDS = 5;
/** Expired buckets dropped, at most, before each new bucket is added: reclaims faster than a flood adds. */
const SWEEP_ON_INSERT_MAX = 16;
/** Expired buckets the background sweep drops per turn of the event loop, so it never stalls requests. */
export const SWEEP_CHUNK_MAX = 10_000;

/**
 * The accepted timestamps of one bucket, oldest first, as runs: [time, hits] pairs for the requests accepted in
 * the same millisecond, in a ring buffer that grows (doubling, from 1 run) up to the limit and never beyond. So
 * memory per bucket is bounded by its limit and by the milliseconds of its window, whichever is smaller: a key
 * taking 800 requests a second under a limit of millions held 48,000 timestamps (512 KB) a minute, and holds a
 * run per busy millisecond instead. A plain array of doubles, not a Float64Array: measured ~110 bytes per
 * one-request bucket instead of ~300.
 */
class Bucket {
  /** Interleaved: runs[2i] a time, runs[2i + 1] how many requests were accepted at it (at least 1). */
  runs: number[];
  /** Index of the oldest run (in runs, not array slots). */
  head = 0;
  /** How many runs are held. */
  size = 0;
  /** How many requests the runs hold: what the limit is compared with. */
  count = 0;
  windowMs: number;

  constructor(windowMs: number) {
    this.runs = [0, 0];
    this.windowMs = windowMs;
  }

  private capacity(): number {
    return this.runs.length / 2;
  }

  private slot(run: number): number {
    assert(run >= 0 && run < this.size, 'bucket run out of range');
    return ((this.head + run) % this.capacity()) * 2;
  }

  /** The time of the index-th accepted request, oldest first. */
  at(index: number): number {
    assert(index >= 0 && index < this.count, 'bucket index out of range');
    let before = 0;
    for (let run = 0; run < this.size; run += 1) {
      const slot = this.slot(run);
      before += this.runs[slot + 1]!;
      if (index < before) return this.runs[slot]!;
    }
    throw new Error('unreachable: the runs hold count requests');
  }

  newest(): number {
    assert(this.size > 0, 'an empty bucket has no newest request');
    return this.runs[this.slot(this.size - 1)]!;
  }

  /** Drops the timestamps that have left the window: those with t <= cutoff. */
  dropUpTo(cutoffMs: number): void {
    while (this.size > 0 && this.runs[this.head * 2]! <= cutoffMs) {
      this.count -= this.runs[this.head * 2 + 1]!;
      this.head = (this.head + 1) % this.capacity();
      this.size -= 1;
    }
    if (this.size === 0) this.head = 0;
    assert((this.size === 0) === (this.count === 0), 'runs and requests are empty together');
  }

  /** Removes one timestamp equal to `timeMs` (the newest such), keeping the rest in order; false if none. */
  removeOne(timeMs: number): boolean {
    for (let run = this.size - 1; run >= 0; run -= 1) {
      const slot = this.slot(run);
      if (this.runs[slot] !== timeMs) continue;
      this.count -= 1;
      this.runs[slot + 1]! -= 1;
      if (this.runs[slot + 1]! === 0) this.removeRun(run);
      return true;
    }
    return false;
  }

  private removeRun(run: number): void {
    for (let later = run; later < this.size - 1; later += 1) {
      const to = this.slot(later);
      const from = this.slot(later + 1);
      this.runs[to] = this.runs[from]!;
      this.runs[to + 1] = this.runs[from + 1]!;
    }
    this.size -= 1;
    if (this.size === 0) this.head = 0;
  }

  push(timeMs: number, limit: number): void {
    assert(this.count < limit, 'a full bucket never records another request');
    assert(this.size === 0 || timeMs >= this.newest(), 'bucket timestamps are kept in order');
    this.count += 1;
    if (this.size > 0 && this.newest() === timeMs) {
      this.runs[this.slot(this.size - 1) + 1]! += 1;
      return;
    }
    if (this.size === this.capacity()) this.grow(Math.min(this.capacity() * 2, limit));
    this.size += 1;
    const slot = this.slot(this.size - 1);
    this.runs[slot] = timeMs;
    this.runs[slot + 1] = 1;
  }

  private grow(capacity: number): void {
    assert(capacity > this.capacity(), 'a bucket only grows');
    const next = new Array<number>(capacity * 2).fill(0);
    for (let run = 0; run < this.size; run += 1) {
      const slot = this.slot(run);
      next[run * 2] = this.runs[slot]!;
      next[run * 2 + 1] = this.runs[slot + 1]!;
    }
    this.runs = next;
    this.head = 0;
  }
}

export interface MemoryLimitStoreOptions {
  nowMs: () => number;
  /** Hard cap on live buckets; beyond it new buckets are refused (fail closed), never a live one evicted. */
  maxBuckets: number;
  /** How often idle buckets are dropped in the background. */
  sweepIntervalMs: number;
}

/**
 * A single-process store; with several instances each would count separately, hence Redis for those.
 * The Map is kept ordered by each bucket's newest accepted request (a bucket moves to the end when it
 * accepts one), so expired buckets are always at the front and a sweep costs O(expired), not O(buckets).
 */
export class MemoryLimitStore implements LimitStore {
  private readonly buckets = new Map<string, Bucket>();
  private readonly nowMs: () => number;
  private readonly maxBuckets: number;
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(options: MemoryLimitStoreOptions) {
    assert(
      Number.isInteger(options.maxBuckets) && options.maxBuckets >= 1,
      'maxBuckets must be a positive integer',
    );
    assert(options.sweepIntervalMs >= 10, 'sweepIntervalMs must be at least 10 ms');
    this.nowMs = options.nowMs;
    this.maxBuckets = options.maxBuckets;
    this.timer = setInterval(() => this.sweepInChunks(), options.sweepIntervalMs);
    // The sweep only frees memory; it must never keep the process alive on its own.
    this.timer.unref();
  }

  async hit(bucketKey: string, limit: number, windowMs: number): Promise<LimitDecision> {
    return this.hitSync(bucketKey, limit, windowMs);
  }

  /** The whole decision, synchronously: no await between reading and recording, so no races. */
  hitSync(bucketKey: string, limit: number, windowMs: number): LimitDecision {
    assertHitArguments(bucketKey, limit, windowMs);
    const nowMs = this.nowMs();
    assert(Number.isFinite(nowMs), 'the clock returns a finite number');
    let bucket = this.buckets.get(bucketKey);
    if (bucket === undefined) {
      this.sweep(SWEEP_ON_INSERT_MAX);
      if (this.buckets.size >= this.maxBuckets) return fullStoreDecision(limit);
      bucket = new Bucket(windowMs);
    }
    bucket.windowMs = windowMs;
    bucket.dropUpTo(nowMs - windowMs);
    const allowed = bucket.count < limit;
    let entry: number | undefined;
    if (allowed) {
      // A clock that steps backwards (NTP) must not break the oldest-first order: record the request no
      // earlier than the newest one. That only keeps it counted a little longer, never shorter.
      entry = bucket.count === 0 ? nowMs : Math.max(nowMs, bucket.newest());
      bucket.push(entry, limit);
      // Re-insert at the end: the Map stays ordered by newest accepted request (see the class comment).
      this.buckets.delete(bucketKey);
      this.buckets.set(bucketKey, bucket);
    }
    assert(this.buckets.size <= this.maxBuckets, 'the store never holds more than maxBuckets');
    const decision = decide(bucket, allowed, limit, windowMs, nowMs);
    return entry === undefined ? decision : { ...decision, entry: String(entry) };
  }

  async peek(bucketKey: string, limit: number, windowMs: number): Promise<LimitDecision> {
    assertHitArguments(bucketKey, limit, windowMs);
    const nowMs = this.nowMs();
    const bucket = this.buckets.get(bucketKey);
    if (bucket === undefined) return decide(new Bucket(windowMs), true, limit, windowMs, nowMs);
    bucket.dropUpTo(nowMs - windowMs);
    return decide(bucket, bucket.count < limit, limit, windowMs, nowMs);
  }

  async forget(bucketKey: string): Promise<void> {
    this.buckets.delete(bucketKey);
  }

  /** Entries are timestamps: two hits in the same millisecond share one, and either's release frees one slot. */
  async release(bucketKey: string, entry: string): Promise<void> {
    const timeMs = Number(entry);
    assert(Number.isFinite(timeMs), 'a memory entry is a timestamp');
    this.buckets.get(bucketKey)?.removeOne(timeMs);
  }

  /**
   * Drops expired buckets (newest request out of its window) from the front of the Map, at most
   * `maxDrops`; returns how many. Stops at the first live bucket: every later one accepted a request
   * no earlier. (With mixed window lengths a short-window bucket can wait behind a longer-window one,
   * at most one long window: bounded, and on the safe side.)
   */
  sweep(maxDrops: number = Number.POSITIVE_INFINITY): number {
    const nowMs = this.nowMs();
    let dropped = 0;
    for (const [key, bucket] of this.buckets) {
      if (dropped >= maxDrops) break;
      if (bucket.size > 0 && bucket.newest() > nowMs - bucket.windowMs) break;
      this.buckets.delete(key);
      dropped += 1;
    }
    return dropped;
  }

  /** The background sweep, in chunks with a turn of the event loop between them. */
  private sweepInChunks(): void {
    if (this.closed) return;
    if (this.sweep(SWEEP_CHUNK_MAX) === SWEEP_CHUNK_MAX) setImmediate(() => this.sweepInChunks());
  }

  size(): number {
    return this.buckets.size;
  }

  /** How many runs (distinct milliseconds) a bucket holds: what its memory is proportional to. */
  runsHeld(bucketKey: string): number {
    return this.buckets.get(bucketKey)?.size ?? 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.buckets.clear();
  }
}

function decide(
  bucket: Bucket,
  allowed: boolean,
  limit: number,
  windowMs: number,
  nowMs: number,
): LimitDecision {
  const windowSeconds = ceilSeconds(windowMs);
  // Clamped to the window: after a backwards clock step a timestamp may lie in the "future".
  const untilLeavesSeconds = (index: number) =>
    Math.min(windowSeconds, ceilSeconds(bucket.at(index) + windowMs - nowMs));
  const resetSeconds = bucket.count === 0 ? 0 : untilLeavesSeconds(0);
  let retryAfterSeconds = 0;
  if (!allowed) {
    // One slot frees when the request at index count - limit leaves: the oldest when count == limit.
    // (count > limit only after the limit was lowered at run time.)
    retryAfterSeconds = Math.max(1, untilLeavesSeconds(bucket.count - limit));
  }
  return { allowed, limit, remaining: Math.max(0, limit - bucket.count), resetSeconds, retryAfterSeconds };
}

function fullStoreDecision(limit: number): LimitDecision {
  return {
    allowed: false,
    limit,
    remaining: 0,
    resetSeconds: FULL_STORE_RETRY_AFTER_SECONDS,
    retryAfterSeconds: FULL_STORE_RETRY_AFTER_SECONDS,
  };
}

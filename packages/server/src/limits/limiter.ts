// The service's rate limiter: the configured per-minute limits over one store (memory, or Redis when
// REDIS_URL is set), plus the cross-instance signal that tells other instances their key cache is stale.
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.ts';
import { createRedisClient, RedisLimitStore, redisStatus, waitForRedisReady } from './redis-store.ts';
import { type BucketName, windowMsOf } from './rules.ts';
import { type LimitDecision, MemoryLimitStore } from './store.ts';

export interface RateLimiter {
  /** Counts one request against the bucket; throws LimiterUnavailableError when the store is down. */
  hit(bucket: BucketName, bucketKey: string): Promise<LimitDecision>;
  /** What hit would decide now, counting nothing. */
  peek(bucket: BucketName, bucketKey: string): Promise<LimitDecision>;
  /** Drops what a bucket counted for this key; throws LimiterUnavailableError when the store is down. */
  forget(bucket: BucketName, bucketKey: string): Promise<void>;
  /** Gives back the slot of one accepted hit (its decision's `entry`); throws LimiterUnavailableError when down. */
  release(bucket: BucketName, bucketKey: string, entry: string): Promise<void>;
  limitOf(bucket: BucketName): number;
  /** Invalidates key caches on every instance (Redis) before resolving; a no-op in memory. */
  publishKeyChange(): Promise<void>;
  /** 'up' | 'down' with Redis, undefined without. */
  redisStatus(): 'up' | 'down' | undefined;
  /** Milliseconds the post-data-loss quarantine still refuses every limited request (0: none, or no Redis). */
  quarantineRemainingMs(): Promise<number>;
  /** Called when Redis comes back: signals may have been missed while it was away. */
  onReconnect(listener: () => void): void;
  close(): Promise<void>;
}

export interface LimiterOptions {
  limitsPerMinute: Record<BucketName, number>;
  /** Told of every refusal (a full bucket; not an outage or a quarantine), for metrics. */
  onRefused: (bucket: BucketName) => void;
  clock: Clock;
  redisUrl: string | undefined;
  redisKeyPrefix: string;
}

/** One bucket per active client and limited route; 1,000,000 of them is ~300 MB at worst (measured). */
const MEMORY_BUCKETS_MAX = 1_000_000;
const MEMORY_SWEEP_INTERVAL_MS = 10_000;
const REDIS_CONNECT_TIMEOUT_MS = 2_000;
const REDIS_COMMAND_TIMEOUT_MS = 500;
const REDIS_READY_WAIT_MS = 5_000;

export async function createRateLimiter(options: LimiterOptions): Promise<RateLimiter> {
  const limitOf = (bucket: BucketName) => options.limitsPerMinute[bucket];
  if (options.redisUrl === undefined) {
    const store = new MemoryLimitStore({
      nowMs: () => options.clock.nowMs(),
      maxBuckets: MEMORY_BUCKETS_MAX,
      sweepIntervalMs: MEMORY_SWEEP_INTERVAL_MS,
    });
    return {
      hit: (bucket, key) => reported(bucket, store.hit(key, limitOf(bucket), windowMsOf(bucket)), options),
      peek: (bucket, key) => reported(bucket, store.peek(key, limitOf(bucket), windowMsOf(bucket)), options),
      forget: (_bucket, key) => store.forget(key),
      release: (_bucket, key, entry) => store.release(key, entry),
      limitOf,
      publishKeyChange: async () => undefined,
      redisStatus: () => undefined,
      quarantineRemainingMs: async () => 0,
      onReconnect: () => undefined,
      close: () => store.close(),
    };
  }
  const redis = createRedisClient(options.redisUrl, {
    connectTimeoutMs: REDIS_CONNECT_TIMEOUT_MS,
    commandTimeoutMs: REDIS_COMMAND_TIMEOUT_MS,
  });
  await waitForRedisReady(redis, REDIS_READY_WAIT_MS); // not fatal: limited routes answer 503 until it is up
  return redisLimiter(redis, options, limitOf);
}

async function reported(
  bucket: BucketName,
  pending: Promise<LimitDecision>,
  options: LimiterOptions,
): Promise<LimitDecision> {
  const decision = await pending;
  if (!decision.allowed && decision.quarantined !== true) options.onRefused(bucket);
  return decision;
}

function redisLimiter(
  redis: Redis,
  options: LimiterOptions,
  limitOf: (bucket: BucketName) => number,
): RateLimiter {
  const store = new RedisLimitStore({
    redis,
    keyPrefix: options.redisKeyPrefix,
    commandTimeoutMs: REDIS_COMMAND_TIMEOUT_MS,
  });
  let everReady = redis.status === 'ready';
  const reconnectListeners: Array<() => void> = [];
  redis.on('ready', () => {
    if (everReady) for (const listener of reconnectListeners) listener();
    everReady = true;
  });
  return {
    hit: (bucket, key) => reported(bucket, store.hit(key, limitOf(bucket), windowMsOf(bucket)), options),
    peek: (bucket, key) => reported(bucket, store.peek(key, limitOf(bucket), windowMsOf(bucket)), options),
    forget: (_bucket, key) => store.forget(key),
    release: (_bucket, key, entry) => store.release(key, entry),
    limitOf,
    async publishKeyChange() {
      await redis.incr(store.signalEpochKey);
    },
    redisStatus: () => redisStatus(redis),
    quarantineRemainingMs: () => store.quarantineRemainingMs(),
    onReconnect: (listener) => reconnectListeners.push(listener),
    async close() {
      await store.close();
      redis.disconnect();
    },
  };
}

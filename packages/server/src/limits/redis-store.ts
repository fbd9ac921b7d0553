// The shared store: every instance counts in the same Redis sorted set per bucket, in one Lua script per
// check (atomic in Redis, so concurrent checks from any number of instances never over-admit).
// When Redis is down or slow a check throws LimiterUnavailableError: the caller refuses the request.
// Silently allowing would turn a Redis outage into "no rate limits at all", exactly when under attack.
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { assert } from '../errors.ts';
import {
  assertHitArguments,
  ceilSeconds,
  type LimitDecision,
  LimiterUnavailableError,
  type LimitStore,
} from './store.ts';

// KEYS[1] the bucket's sorted set (score = accept time in µs, member = unique per request),
// KEYS[2] the signal epoch, KEYS[3] the generation, KEYS[4] the quarantine deadline.
// ARGV: limit, windowMs, member, the generation this instance last saw ('' if none).
// Scores use Redis's clock (TIME), so instances with skewed clocks still agree on one timeline; µs
// since 1970 (~1.8e15) are exact in Lua's doubles (< 2^53). Redis >= 5 replicates a script by its
// effects, which is what makes the non-deterministic TIME legal before a write.
//
// Data loss: a Redis restarted without persistence (or flushed) has forgotten every window, so the next
// minute could admit N more requests per bucket than the limit allows. The generation key detects it: it
// is created once and never expires; an instance that saw generation G and now finds none (or another)
// knows the logs are gone and starts a quarantine of one window, during which every check is refused
// (the caller answers 503), on every instance. A fresh deployment (no instance saw a generation) starts
// at once.
export const SLIDING_LOG_LUA = `
local time = redis.call('TIME')
local now_us = tonumber(time[1]) * 1000000 + tonumber(time[2])
local limit = tonumber(ARGV[1])
local window_ms = tonumber(ARGV[2])
local window_us = window_ms * 1000
local epoch = redis.call('GET', KEYS[2])
if not epoch then epoch = '0' end
local generation = redis.call('GET', KEYS[3])
if not generation then
  generation = string.format('%.0f', now_us)
  redis.call('SET', KEYS[3], generation)
end
if ARGV[4] ~= '' and ARGV[4] ~= generation and not redis.call('GET', KEYS[4]) then
  redis.call('SET', KEYS[4], string.format('%.0f', now_us + window_us), 'PX', window_ms)
end
local quarantine = redis.call('GET', KEYS[4])
if quarantine and tonumber(quarantine) > now_us then
  local wait_ms = math.ceil((tonumber(quarantine) - now_us) / 1000)
  return {0, 0, wait_ms, wait_ms, epoch, generation, 1}
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_us - window_us)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  redis.call('ZADD', KEYS[1], now_us, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window_ms + 1)
  count = count + 1
  allowed = 1
end
local function ms_until_leaves(index)
  local entry = redis.call('ZRANGE', KEYS[1], index, index, 'WITHSCORES')
  local ms = math.ceil((tonumber(entry[2]) + window_us - now_us) / 1000)
  if ms > window_ms then ms = window_ms end
  if ms < 0 then ms = 0 end
  return ms
end
local reset_ms = 0
if count > 0 then reset_ms = ms_until_leaves(0) end
local retry_ms = 0
if allowed == 0 then retry_ms = ms_until_leaves(count - limit) end
return {allowed, limit - count, reset_ms, retry_ms, epoch, generation, 0}
`;
const SLIDING_LOG_SHA = createHash('sha1').update(SLIDING_LOG_LUA).digest('hex');

export interface RedisLimitStoreOptions {
  redis: Redis;
  /** Prepended to every key, e.g. `aws:`; tests use a unique one each. */
  keyPrefix: string;
  /** A check that takes longer fails with LimiterUnavailableError (the script may still run; see hit()). */
  commandTimeoutMs: number;
  /** Defaults to `<keyPrefix>signal-epoch`; writers INCR it to invalidate caches on every instance. */
  signalEpochKey?: string;
}

export class RedisLimitStore implements LimitStore {
  readonly signalEpochKey: string;
  private readonly redis: Redis;
  private readonly keyPrefix: string;
  private readonly commandTimeoutMs: number;
  // Members must differ even for two checks in the same microsecond on two instances: a random
  // per-store id plus a sequence number (a ZADD of an existing member would count one request as none).
  private readonly memberPrefix = randomBytes(6).toString('base64url');
  private memberSequence = 0;
  /** The generation this instance last saw: a different one later means Redis lost its data. */
  private knownGeneration = '';

  constructor(options: RedisLimitStoreOptions) {
    assert(
      options.commandTimeoutMs >= 1 && options.commandTimeoutMs <= 60_000,
      'commandTimeoutMs out of bounds',
    );
    this.redis = options.redis;
    this.keyPrefix = options.keyPrefix;
    this.commandTimeoutMs = options.commandTimeoutMs;
    this.signalEpochKey = options.signalEpochKey ?? `${options.keyPrefix}signal-epoch`;
  }

  async hit(bucketKey: string, limit: number, windowMs: number): Promise<LimitDecision> {
    assertHitArguments(bucketKey, limit, windowMs);
    this.memberSequence = (this.memberSequence + 1) % Number.MAX_SAFE_INTEGER;
    const member = `${this.memberPrefix}:${this.memberSequence.toString(36)}`;
    const keys = [
      `${this.keyPrefix}rl:${bucketKey}`,
      this.signalEpochKey,
      `${this.keyPrefix}generation`,
      `${this.keyPrefix}quarantine`,
    ];
    const args = [String(limit), String(windowMs), member, this.knownGeneration];
    // A timed-out script may still run in Redis and count this request. That errs on the safe side:
    // the request was refused here, and at worst it uses up one slot of its own bucket.
    const reply = await this.bounded(this.runScript(keys, args));
    const decision = decisionFromScriptReply(reply, limit);
    this.knownGeneration = decision.generation ?? this.knownGeneration;
    return decision.allowed ? { ...decision, entry: member } : decision;
  }

  /** EVALSHA with a fallback to EVAL (which also caches the script) after a Redis restart or flush. */
  private async runScript(keys: string[], args: string[]): Promise<unknown> {
    try {
      return await this.redis.evalsha(SLIDING_LOG_SHA, keys.length, ...keys, ...args);
    } catch (error) {
      if (!errorMessage(error).startsWith('NOSCRIPT')) throw error;
      return await this.redis.eval(SLIDING_LOG_LUA, keys.length, ...keys, ...args);
    }
  }

  async peek(bucketKey: string, limit: number, windowMs: number): Promise<LimitDecision> {
    assertHitArguments(bucketKey, limit, windowMs);
    const reply = await this.bounded(
      this.redis.eval(PEEK_LUA, 1, `${this.keyPrefix}rl:${bucketKey}`, String(limit), String(windowMs)),
    );
    const [allowedFlag, count, resetMs, retryMs] = (Array.isArray(reply) ? reply : []).map(Number);
    if (![allowedFlag, count, resetMs, retryMs].every(Number.isInteger)) {
      throw new LimiterUnavailableError(`rate limiter: malformed peek reply ${JSON.stringify(reply)}`);
    }
    const allowed = allowedFlag === 1;
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - (count ?? 0)),
      resetSeconds: ceilSeconds(resetMs ?? 0),
      retryAfterSeconds: allowed ? 0 : Math.max(1, ceilSeconds(retryMs ?? 0)),
    };
  }

  async forget(bucketKey: string): Promise<void> {
    await this.bounded(this.redis.del(`${this.keyPrefix}rl:${bucketKey}`));
  }

  async release(bucketKey: string, entry: string): Promise<void> {
    await this.bounded(this.redis.zrem(`${this.keyPrefix}rl:${bucketKey}`, entry));
  }

  /** How long the quarantine after a Redis data loss still refuses every check, by Redis's clock (0: none). */
  async quarantineRemainingMs(): Promise<number> {
    const reply = await this.bounded(
      this.redis.eval(QUARANTINE_REMAINING_LUA, 1, `${this.keyPrefix}quarantine`),
    );
    return Math.max(0, Number(reply));
  }

  /** A Redis call within the command timeout; any failure is a LimiterUnavailableError (the caller fails closed). */
  private async bounded<T>(call: Promise<T>): Promise<T> {
    try {
      return await withTimeout(call, this.commandTimeoutMs);
    } catch (error) {
      if (error instanceof LimiterUnavailableError) throw error;
      throw new LimiterUnavailableError(`rate limiter unavailable: ${errorMessage(error)}`, { cause: error });
    }
  }

  /** The client belongs to the caller (it is shared with pub/sub and health); closing it is theirs. */
  async close(): Promise<void> {}
}

// Reads a bucket as SLIDING_LOG_LUA would judge it, recording nothing: {allowed, count, reset_ms, retry_ms}.
const PEEK_LUA = `
local time = redis.call('TIME')
local now_us = tonumber(time[1]) * 1000000 + tonumber(time[2])
local limit = tonumber(ARGV[1])
local window_us = tonumber(ARGV[2]) * 1000
local entries = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. string.format('%.0f', now_us - window_us), '+inf', 'WITHSCORES')
local count = #entries / 2
local function ms_until_leaves(index)
  local ms = math.ceil((tonumber(entries[index * 2 + 2]) + window_us - now_us) / 1000)
  if ms < 0 then ms = 0 end
  return ms
end
local reset_ms = 0
if count > 0 then reset_ms = ms_until_leaves(0) end
if count < limit then return {1, count, reset_ms, 0} end
return {0, count, reset_ms, ms_until_leaves(count - limit)}
`;

const QUARANTINE_REMAINING_LUA = `
local quarantine = redis.call('GET', KEYS[1])
if not quarantine then return 0 end
local time = redis.call('TIME')
local now_us = tonumber(time[1]) * 1000000 + tonumber(time[2])
return math.max(0, math.ceil((tonumber(quarantine) - now_us) / 1000))
`;

/** Turns the script's `{allowed, remaining, reset_ms, retry_ms, epoch, generation, quarantined}` into a decision. */
export function decisionFromScriptReply(reply: unknown, limit: number): LimitDecision {
  if (!Array.isArray(reply) || reply.length !== 7) {
    throw new LimiterUnavailableError(`rate limiter: unexpected script reply ${JSON.stringify(reply)}`);
  }
  const [allowedFlag, remaining, resetMs, retryMs, epoch, generation, quarantinedFlag] = reply.map(
    (part: unknown) => (typeof part === 'number' || typeof part === 'string' ? part : String(part)),
  );
  const allowed = Number(allowedFlag) === 1;
  const numbers = [Number(remaining), Number(resetMs), Number(retryMs)];
  if (!numbers.every(Number.isInteger) || typeof epoch !== 'string' || typeof generation !== 'string') {
    throw new LimiterUnavailableError(`rate limiter: malformed script reply ${JSON.stringify(reply)}`);
  }
  const [remainingCount = 0, resetAfterMs = 0, retryAfterMs = 0] = numbers;
  return {
    allowed,
    limit,
    remaining: Math.max(0, remainingCount),
    resetSeconds: ceilSeconds(resetAfterMs),
    retryAfterSeconds: allowed ? 0 : Math.max(1, ceilSeconds(retryAfterMs)),
    signalEpoch: epoch,
    generation,
    quarantined: Number(quarantinedFlag) === 1,
  };
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new LimiterUnavailableError(`rate limiter: Redis did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  // The losing promise's rejection must not surface as an unhandled rejection later.
  promise.catch(() => {});
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export interface RedisClientOptions {
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  /** Connection errors, for logging; they repeat every reconnect attempt while Redis is down. */
  onError?: (error: Error) => void;
}

/** Reconnect attempts back off from 50 ms to at most this, and never stop: Redis coming back heals us. */
export const RECONNECT_DELAY_MAX_MS = 1_000;

/**
 * A client tuned for fail-fast limiting: no offline queue (a command while disconnected fails at once
 * instead of waiting), no retries of a failed command, endless reconnects at most 1 s apart.
 */
export function createRedisClient(url: string, options: RedisClientOptions): Redis {
  assert(options.connectTimeoutMs >= 1 && options.commandTimeoutMs >= 1, 'Redis timeouts must be positive');
  // Loaded here, not at start: a deployment without REDIS_URL never holds the client (~15 MB resident).
  const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  const client = new RedisClient(url, {
    lazyConnect: false,
    connectTimeout: options.connectTimeoutMs,
    commandTimeout: options.commandTimeoutMs,
    // A Redis that accepted the TCP connection but stopped answering (paused, swapping) would otherwise
    // look "up" forever; dropping the socket after a few missed answers moves it to reconnecting.
    socketTimeout: Math.max(1_000, options.commandTimeoutMs * 3),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    enableAutoPipelining: true,
    retryStrategy: (attempt: number) => Math.min(50 * 2 ** Math.min(attempt, 10), RECONNECT_DELAY_MAX_MS),
  });
  // Without a listener ioredis prints every connection error; the owner decides what to log.
  client.on('error', (error: Error) => options.onError?.(error));
  return client;
}

/** For the health endpoint: only a connection that is ready to run commands counts as up. */
export function redisStatus(client: Redis): 'up' | 'down' {
  return client.status === 'ready' ? 'up' : 'down';
}

/**
 * Resolves true once the client is ready, false after `timeoutMs`. Without an offline queue a command sent
 * before the first connection completes fails at once, so a server waits here (bounded) before listening.
 */
export function waitForRedisReady(client: Redis, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      resolve(false);
    }, timeoutMs);
    client.once('ready', onReady);
  });
}

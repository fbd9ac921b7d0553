// Applies a limiter decision to a response: RateLimit-* headers on every limited response, and the 429 of
// seed section 7 (RATE_LIMITED, Retry-After) when the bucket is full. A store outage is a 503, never a pass.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ToolName } from '../domain/tool-names.ts';
import { AppError, assert } from '../errors.ts';
import type { RateLimiter } from '../limits/limiter.ts';
import {
  accountSubject,
  apiKeySubject,
  type BucketName,
  bucketKeyFor,
  ipSubject,
  restBucketFor,
} from '../limits/rules.ts';
import { type LimitDecision, LimiterUnavailableError } from '../limits/store.ts';
import type { CodeLimit, GuessLimits } from '../services/identity/auth.ts';

export interface LimitTarget {
  bucket: BucketName;
  /** `user:<id>`, `key:<id>` or `ip:<addr>`. */
  subject: string;
}

/** A tool call, by POST /mcp/v1/tools/<name> or an MCP tools/call or resources/read: the tool's bucket, per key. */
export function toolTarget(tool: ToolName, apiKeyId: string): LimitTarget {
  return { bucket: tool, subject: apiKeySubject(apiKeyId) };
}

/** REST and static routes: the route's bucket (contract section 5), for a user or else the client IP. */
export function restTarget(request: FastifyRequest, userId: string | null): LimitTarget {
  const bucket = restBucketFor(request.method, request.routeOptions.url ?? '*');
  return { bucket, subject: userId === null ? ipSubject(request.ip) : `user:${userId}` };
}

export async function enforceLimit(
  limiter: RateLimiter,
  request: FastifyRequest,
  reply: FastifyReply,
  target: LimitTarget,
): Promise<LimitDecision | null> {
  const key = bucketKeyFor({
    bucket: target.bucket,
    method: request.method,
    routeUrl: request.routeOptions.url ?? '*',
    subject: target.subject,
  });
  const decision = await decide(limiter, target.bucket, key, (error) =>
    request.log.warn({ err: error }, 'rate limiter unavailable'),
  );
  if (decision === null) return null;
  reply.header('ratelimit-limit', String(decision.limit));
  reply.header('ratelimit-remaining', String(decision.remaining));
  reply.header('ratelimit-reset', String(decision.resetSeconds));
  if (!decision.allowed) throw rateLimited(decision, target.bucket);
  return decision;
}

/**
 * An MCP tools/call counts against the same per-key, per-tool bucket as POST /mcp/v1/tools/<name> (a tool
 * bucket's key does not depend on the route). Throws the same errors; MCP turns them into tool errors.
 */
export async function enforceToolLimit(limiter: RateLimiter, target: LimitTarget): Promise<void> {
  const key = bucketKeyFor(target);
  const decision = await decide(limiter, target.bucket, key, () => undefined);
  if (decision !== null && !decision.allowed) throw rateLimited(decision, target.bucket);
}

/** The `login_account` bucket's key of an email (every way to prove a password or code counts in it). */
const accountKey = (normalisedEmail: string) =>
  bucketKeyFor({ bucket: 'login_account', subject: accountSubject(normalisedEmail) });

/**
 * Failed logins per account (contract section 5, bucket `login_account`): an account whose window is full
 * answers 429 before its password is even hashed, whatever the client's IP, so guessing from many addresses
 * stops too. Only INVALID_CREDENTIALS counts; a success costs the account nothing. Attempts already in flight
 * when the window fills can still finish: at most the limit plus the concurrent attempts are ever judged.
 */
export async function limitFailedLogins<T>(
  limiter: RateLimiter,
  normalisedEmail: string,
  attempt: (lockedOut: boolean) => Promise<T | null>,
): Promise<T> {
  const key = accountKey(normalisedEmail);
  const before = await unavailableAs503(() => limiter.peek('login_account', key));
  if (!before.allowed) {
    // Locked out: guessing passwords stops here, but the owner with a second factor still gets in — the right
    // password earns an mfaToken, and the factor is what guessing cannot get past. Every other outcome, a right
    // password without a factor included, is the same 429.
    try {
      await attempt(true);
    } catch (error) {
      if (error instanceof AppError && error.code === 'MFA_REQUIRED') throw error;
    }
    throw rateLimited(before, 'login_account');
  }
  try {
    const result = await attempt(false);
    if (result === null) throw rateLimited(before, 'login_account');
    return result;
  } catch (error) {
    if (error instanceof AppError && error.code === 'INVALID_CREDENTIALS') {
      await unavailableAs503(() => limiter.hit('login_account', key));
    }
    throw error;
  }
}

/** A wrong password or code outside the login form (second step, step-up, password change) counts too. */
export function countWrongGuess(limiter: RateLimiter): (normalisedEmail: string) => Promise<void> {
  return async (normalisedEmail) => {
    const key = accountKey(normalisedEmail);
    await unavailableAs503(() => limiter.hit('login_account', key));
  };
}

/** Both limits on guessing an account's secrets, for the routes that judge a code. */
export function guessLimits(limiter: RateLimiter): GuessLimits {
  return { wrong: countWrongGuess(limiter), code: limitCodeGuesses(limiter) };
}

/**
 * TOTP and recovery codes per account (contract section 8, bucket `mfa_code`): every code takes a slot BEFORE it
 * is judged, so concurrent guesses over many mfaTokens, sessions and IPs can never together pass the limit; a right
 * code gives its slot back, so only wrong ones are counted. Past the limit every code, a right one too, is a 429
 * until the window passes — passkeys are not limited here (they cannot be guessed). The `login_account` lock-out
 * does not apply: its bypass for an owner with a factor is what lets the owner in while passwords are guessed.
 */
export function limitCodeGuesses(limiter: RateLimiter): CodeLimit {
  return async (normalisedEmail, judge) => {
    const key = bucketKeyFor({ bucket: 'mfa_code', subject: accountSubject(normalisedEmail) });
    const decision = await decide(limiter, 'mfa_code', key, () => undefined);
    assert(decision !== null, 'only health passes without a decision');
    if (!decision.allowed) throw rateLimited(decision, 'mfa_code');
    assert(decision.entry !== undefined, 'an accepted hit names its entry');
    let judged = false;
    let right = false;
    try {
      right = await judge();
      judged = true;
      return right;
    } finally {
      // A code that was right (or never judged: the database failed) gives its slot back. Best effort: a limiter
      // that is down now leaves it counted, on the safe side.
      if (right || !judged) await limiter.release('mfa_code', key, decision.entry).catch(() => undefined);
    }
  };
}

/**
 * A new password (the operator's reset link) ends the lock-out that guessing the old one earned. Best effort: the
 * reset has committed, so a limiter that is down now only leaves the window to run out (at most 15 minutes).
 */
export async function forgetFailedLogins(
  limiter: RateLimiter,
  normalisedEmail: string,
  log: (error: unknown) => void,
): Promise<void> {
  try {
    await limiter.forget('login_account', accountKey(normalisedEmail));
  } catch (error) {
    log(error);
  }
}

/**
 * A password check by a logged-in session (step-up, password change) is refused while the account is locked
 * out: a stolen session must not become a way around the login limit.
 */
export async function refuseWhileLockedOut(limiter: RateLimiter, normalisedEmail: string): Promise<void> {
  const key = accountKey(normalisedEmail);
  const before = await unavailableAs503(() => limiter.peek('login_account', key));
  if (!before.allowed) throw rateLimited(before, 'login_account');
}

const limiterUnavailable = () =>
  new AppError('SERVICE_UNAVAILABLE', 'the rate limiter is unavailable; retry shortly', {
    headers: { 'retry-after': '1' },
  });

async function unavailableAs503<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof LimiterUnavailableError)) throw error;
    throw limiterUnavailable();
  }
}

/** The store's decision, or null when the bucket may pass without one (health during an outage). */
async function decide(
  limiter: RateLimiter,
  bucket: BucketName,
  key: string,
  onUnavailable: (error: unknown) => void,
): Promise<LimitDecision | null> {
  let decision: LimitDecision;
  try {
    decision = await limiter.hit(bucket, key);
  } catch (error) {
    if (!(error instanceof LimiterUnavailableError)) throw error;
    // Health must still answer (it reports the outage); everything else fails closed.
    if (bucket === 'health') return null;
    onUnavailable(error);
    throw limiterUnavailable();
  }
  if (decision.quarantined === true) {
    if (bucket === 'health') return null;
    throw new AppError(
      'SERVICE_UNAVAILABLE',
      'the rate limiter is recovering from a Redis data loss; retry shortly',
      {
        headers: { 'retry-after': String(decision.retryAfterSeconds) },
      },
    );
  }
  return decision;
}

function rateLimited(decision: LimitDecision, bucket: BucketName): AppError {
  const rate =
    bucket === 'login_account'
      ? `${decision.limit} failed logins per 15 minutes for this account`
      : bucket === 'mfa_code'
        ? `${decision.limit} wrong codes per 15 minutes for this account (a passkey still works)`
        : `${decision.limit} requests per minute for ${describeBucket(bucket)}`;
  return new AppError(
    'RATE_LIMITED',
    `rate limit exceeded: ${rate}; retry in ${decision.retryAfterSeconds} s`,
    { headers: { 'retry-after': String(decision.retryAfterSeconds) } },
  );
}

function describeBucket(bucket: BucketName): string {
  switch (bucket) {
    case 'wallet':
      return 'GET /wallet/*';
    case 'agent_wallets':
      return '*/agent-wallets/*';
    case 'login':
      return 'POST /auth/login';
    case 'signup':
      return 'POST /auth/signup';
    case 'tool_unauthenticated':
      return 'tool calls without a valid API key';
    case 'mcp_transport':
      return 'the MCP transport (/mcp)';
    case 'default':
      return 'this endpoint';
    default:
      return bucket;
  }
}

// Applies a limiter decision to a response: RateLimit-* headers on every limited response, and the 429 of
// seed section 7 (RATE_LIMITED, Retry-After) when the bucket is full. A store outage is a 503, never a pass.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { RateLimiter } from '../limits/limiter.ts';
import { type BucketName, bucketKeyFor, ipSubject, restBucketFor } from '../limits/rules.ts';
import { type LimitDecision, LimiterUnavailableError } from '../limits/store.ts';

export interface LimitTarget {
  bucket: BucketName;
  /** `user:<id>`, `key:<id>` or `ip:<addr>`. */
  subject: string;
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
  let decision: LimitDecision;
  try {
    decision = await limiter.hit(target.bucket, key);
  } catch (error) {
    if (!(error instanceof LimiterUnavailableError)) throw error;
    // Health must still answer (it reports the outage); everything else fails closed.
    if (target.bucket === 'health') return null;
    request.log.warn({ err: error }, 'rate limiter unavailable');
    throw new AppError('SERVICE_UNAVAILABLE', 'the rate limiter is unavailable; retry shortly', {
      headers: { 'retry-after': '1' },
    });
  }
  if (decision.quarantined === true) {
    if (target.bucket === 'health') return null;
    throw new AppError(
      'SERVICE_UNAVAILABLE',
      'the rate limiter is recovering from a Redis data loss; retry shortly',
      {
        headers: { 'retry-after': String(decision.retryAfterSeconds) },
      },
    );
  }
  reply.header('ratelimit-limit', String(decision.limit));
  reply.header('ratelimit-remaining', String(decision.remaining));
  reply.header('ratelimit-reset', String(decision.resetSeconds));
  if (!decision.allowed) {
    throw new AppError(
      'RATE_LIMITED',
      `rate limit exceeded: ${decision.limit} requests per minute for ${describeBucket(target.bucket)}; ` +
        `retry in ${decision.retryAfterSeconds} s`,
      { headers: { 'retry-after': String(decision.retryAfterSeconds) } },
    );
  }
  return decision;
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
    case 'default':
      return 'this endpoint';
    default:
      return bucket;
  }
}

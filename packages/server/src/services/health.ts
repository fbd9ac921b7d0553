// GET /health's reading of the service: the database, Redis (and its quarantine), the treasury on the evm rail,
// each within a bound, and what is wrong in words an operator can act on.
import { sql } from 'kysely';
import { withinMs } from '../clock.ts';
import type { RateLimiter } from '../limits/limiter.ts';
import type { Store } from '../store/db.ts';
import type { ExternalRail } from './rail/external.ts';

export interface HealthView {
  status: 'ok' | 'degraded';
  database: 'up' | 'down';
  storage: 'sqlite' | 'postgres';
  rail: string;
  redis?: 'up' | 'down';
  /** evm rail: the treasury's address and holdings (null when the chain cannot be read). */
  treasury?: { address: string; gasWei: string; usdc: string } | null;
  /** Why the service is degraded, in words, when it is (absent when ok). */
  reasons?: string[];
}

const HEALTH_CHECK_TIMEOUT_MS = 2_000;

export async function health(store: Store, limiter: RateLimiter, rail: ExternalRail): Promise<HealthView> {
  const [database, quarantineMs, railHealth] = await Promise.all([
    withinMs(sql`select 1`.execute(store.db), HEALTH_CHECK_TIMEOUT_MS).then(
      () => 'up' as const,
      () => 'down' as const,
    ),
    limiter.redisStatus() === 'up'
      ? withinMs(limiter.quarantineRemainingMs(), HEALTH_CHECK_TIMEOUT_MS).catch(() => 0)
      : 0,
    rail.health(HEALTH_CHECK_TIMEOUT_MS),
  ]);
  const redis = limiter.redisStatus();
  const reasons = [...healthReasons({ database, redis, quarantineMs }), ...railHealth.reasons];
  return {
    status: reasons.length === 0 ? 'ok' : 'degraded',
    database,
    storage: store.dialect,
    rail: rail.name,
    ...(redis === undefined ? {} : { redis }),
    ...(railHealth.treasury === undefined ? {} : { treasury: railHealth.treasury }),
    ...(reasons.length === 0 ? {} : { reasons }),
  };
}

/** Pure: what health says is wrong, in words an operator can act on. */
export function healthReasons(state: {
  database: 'up' | 'down';
  redis: 'up' | 'down' | undefined;
  quarantineMs: number;
}): string[] {
  const reasons: string[] = [];
  if (state.database === 'down')
    reasons.push('the database is unreachable: requests that need it answer 503');
  if (state.redis === 'down') reasons.push('Redis is unreachable: rate-limited routes answer 503');
  if (state.quarantineMs > 0) {
    reasons.push(
      `Redis lost its rate-limit data: limited routes answer 503 for ${Math.ceil(state.quarantineMs / 1000)} s more`,
    );
  }
  return reasons;
}

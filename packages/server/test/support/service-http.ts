// Requests to a service running as a real process (fault, crash and multi-instance tests), and the few steps
// those tests share: an agent key on a funded wallet, waiting for a condition, and the 200-or-bounded-503 rule.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Answer } from './payment-load.ts';

export interface HttpReply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  body: any;
}

const REQUEST_TIMEOUT_MS = 30_000;

export async function request(
  base: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
): Promise<HttpReply> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** A new user with 100,000 USDC moved to one agent wallet, and that wallet's read+write API key. */
export async function fundedAgentKey(base: string, email: string): Promise<string> {
  const signup = await request(base, 'POST', '/api/v1/auth/signup', undefined, {
    email,
    password: 'a long enough password',
  });
  const token = signup.body.data.token;
  await request(base, 'POST', '/api/v1/wallet/sandbox/deposit', token, { amount: '100000' });
  const walletId = (await request(base, 'POST', '/api/v1/agent-wallets', token, { label: 'load' })).body.data
    .id;
  await request(base, 'POST', `/api/v1/agent-wallets/${walletId}/fund`, token, { amount: '100000' });
  return (await request(base, 'POST', `/api/v1/agent-wallets/${walletId}/keys`, token, { label: 'load' }))
    .body.data.key;
}

export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
): Promise<number> {
  const startedMs = Date.now();
  while (Date.now() - startedMs < timeoutMs) {
    if (await check().catch(() => false)) return Date.now() - startedMs;
    await sleep(100);
  }
  assert.fail(`${what}: not within ${timeoutMs} ms`);
}

/** Every answer is a success or a 503 within the bound: never a 500, a dropped connection or a hang. */
export function assertOnly200or503(answers: Answer[], phase: string, boundMs: number): void {
  const bad = answers.filter(
    (a) => a.status !== 200 && !(a.status === 503 && a.code === 'SERVICE_UNAVAILABLE'),
  );
  assert.deepEqual(bad, [], `${phase}: answers other than 200 or 503 SERVICE_UNAVAILABLE`);
  const slow = answers.filter((a) => a.elapsedMs > boundMs);
  assert.deepEqual(slow, [], `${phase}: answers slower than ${boundMs} ms`);
}

/** The number of completed transactions of the key's wallet (its funding included). */
export async function completedCount(base: string, key: string): Promise<number> {
  const history = await request(base, 'POST', '/mcp/v1/tools/get_tx_history', key, {
    params: { limit: 1, status: 'completed' },
  });
  return history.body.data.total;
}

/** A check for waitFor: health answers and says `field` (database or redis) is `state`. */
export function healthSays(base: string, field: 'database' | 'redis', state: 'up' | 'down') {
  return async () => {
    const health = await request(base, 'GET', '/api/v1/health');
    return health.status === 200 && health.body.data[field] === state;
  };
}

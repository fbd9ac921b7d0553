// GET /metrics: off without METRICS_TOKEN, a 401 without the token, and with it Prometheus text that counts
// requests by route and status, payments by status and rail, rate-limit refusals by bucket, ledger batches,
// the database pool and the event loop. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { agentWithKey, EXTERNAL, tool } from './support/agent.ts';
import { GENEROUS_RATE_LIMITS, type Harness, startHarness, storeTargets } from './support/harness.ts';
import { call, expectError } from './support/http.ts';

const TOKEN = 'metrics-token-0123456789abcdef';

/** The value of one sample line, e.g. `name{a="b"} 3`; undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

for (const target of await storeTargets()) {
  describe(`GET /metrics (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      const limits = { ...JSON.parse(GENEROUS_RATE_LIMITS), check_balance: 1 };
      h = await startHarness(target.name, 'metrics', {
        env: { METRICS_TOKEN: TOKEN, RATE_LIMITS: JSON.stringify(limits) },
      });
    });
    after(() => h.close());

    const scrape = () => call(h.app, 'GET', '/metrics', undefined, { token: TOKEN });

    test('needs the token: none or a wrong one is a 401 that shows nothing', async () => {
      expectError(await call(h.app, 'GET', '/metrics'), 401, 'UNAUTHORIZED');
      expectError(
        await call(h.app, 'GET', '/metrics', undefined, { token: `${TOKEN}x` }),
        401,
        'UNAUTHORIZED',
      );
      expectError(await call(h.app, 'GET', '/metrics', undefined, { token: 'short' }), 401, 'UNAUTHORIZED');
    });

    test('counts requests, payments, refusals and batches; shows pool, queue and event loop', async () => {
      const agent = await agentWithKey(h);
      await call(h.app, 'GET', '/api/v1/health');
      const paid = await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '1' });
      assert.equal(paid.status, 200, paid.raw);
      await tool(h, agent.key, 'check_balance');
      const limited = await tool(h, agent.key, 'check_balance');
      assert.equal(limited.status, 429);
      const reply = await scrape();
      assert.equal(reply.status, 200);
      assert.match(String(reply.headers['content-type']), /^text\/plain/);
      const text = reply.raw;
      const health = { method: 'GET', route: '/api/v1/health', status: '200' };
      assert.ok((sample(text, 'agent_wallet_http_requests_total', health) ?? 0) >= 1, 'health counted');
      assert.ok((sample(text, 'agent_wallet_http_request_duration_seconds_count', health) ?? 0) >= 1);
      const completed = { status: 'completed', rail: 'sandbox' };
      assert.equal(sample(text, 'agent_wallet_payments_total', completed), 1);
      assert.equal(sample(text, 'agent_wallet_rate_limit_refusals_total', { bucket: 'check_balance' }), 1);
      assert.ok((sample(text, 'agent_wallet_ledger_batch_size_count') ?? 0) >= 3, 'deposit, fund, payment');
      assert.equal(sample(text, 'agent_wallet_ledger_queue_length'), 0);
      assert.notEqual(sample(text, 'agent_wallet_nodejs_eventloop_lag_seconds'), undefined);
      const pool = sample(text, 'agent_wallet_db_pool_in_use');
      if (target.name === 'postgres') assert.ok(pool !== undefined && pool >= 0, 'pool gauge on PostgreSQL');
      assert.ok(!text.includes(agent.key) && !text.includes(agent.walletId), 'no key or id in label values');
    });
  });
}

describe('GET /metrics without METRICS_TOKEN', () => {
  test('is a 404 envelope that says how to turn it on', async () => {
    const h = await startHarness('sqlite', 'metrics_off');
    try {
      const reply = await call(h.app, 'GET', '/metrics', undefined, { token: TOKEN });
      expectError(reply, 404, 'NOT_FOUND');
      assert.match(reply.body.error.message, /METRICS_TOKEN/);
    } finally {
      await h.close();
    }
  });
});

// Issue 10, defect 6: an API key sent in the URL (?api_key=svc_live_…) was written to the log in full. No log
// line may carry a key, a JWT or a query value, whatever the route, status or error.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { agentWithKey } from './support/agent.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { call } from './support/http.ts';

describe('log lines carry no secrets', () => {
  const lines: string[] = [];
  let h: Harness;
  before(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(
          ...String(chunk)
            .split('\n')
            .filter((l) => l !== ''),
        );
        done();
      },
    });
    h = await startHarness('sqlite', 'logs_security', { logTo: sink });
  });
  after(() => h.close());

  test('keys and tokens in query strings, headers and bodies never reach a log line', async () => {
    const agent = await agentWithKey(h);
    const { user } = agent;
    const key: string = agent.key;
    await call(h.app, 'GET', `/api/v1/health?api_key=${key}&x=1`);
    await call(h.app, 'POST', `/mcp/v1/tools/check_balance?api_key=${key}`, {}, { token: key });
    await call(h.app, 'GET', `/api/v1/wallet?token=${user.token}`, undefined, { token: user.token });
    await call(h.app, 'GET', `/api/v1/no-such-route?api_key=${key}`);
    await call(h.app, 'GET', `/api/v1/health?api_key=${key}%zz`); // a malformed URL, logged as an error path
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(lines.length >= 8, `logging is on (${lines.length} lines)`);
    for (const line of lines) {
      assert.ok(!line.includes(key), `a log line holds the API key: ${line}`);
      assert.ok(
        !line.includes(key.slice('svc_live_'.length)),
        `a log line holds the key's secret part: ${line}`,
      );
      assert.ok(!line.includes(user.token), `a log line holds the JWT: ${line}`);
      assert.ok(!line.includes(user.password), `a log line holds the password: ${line}`);
    }
    const logged = lines.map((l) => JSON.parse(l)).filter((l) => l.req?.url?.startsWith('/api/v1/health?'));
    assert.ok(logged.length > 0, 'the request with a query string was logged');
    assert.equal(logged[0].req.url, '/api/v1/health?api_key=[redacted]&x=[redacted]');
  });
});

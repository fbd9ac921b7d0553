// CORS for ALLOWED_ORIGINS (contract section 6): a page on an allowed origin can call the REST API and POST /mcp
// — its preflight is answered before authentication, its answers name the origin and expose the headers an
// integrator reads — while any other origin is still refused with 403 and learns nothing, and requests without an
// Origin (servers, agents) and same-origin ones (the dashboard) carry no CORS headers at all. (A real browser
// holds the same in packages/dashboard/test/e2e-cors.test.ts.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { allowedCorsOrigin } from '../src/http/cors.ts';
import { agentWithKey } from './support/agent.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { expectError } from './support/http.ts';

const APP = 'https://app.example.test';
const OTHER = 'https://evil.example.test';

describe('CORS for ALLOWED_ORIGINS', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', 'cors', { env: { ALLOWED_ORIGINS: `${APP},http://127.0.0.1:9999` } });
  });
  after(() => h?.close());

  const preflight = (url: string, origin: string, method = 'POST') =>
    h.app.inject({
      method: 'OPTIONS',
      url,
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': 'authorization, content-type, idempotency-key',
      },
    });

  test('pure: only an origin on the list, compared as browsers send it', () => {
    assert.equal(allowedCorsOrigin(APP, [APP]), APP);
    assert.equal(allowedCorsOrigin('HTTPS://APP.EXAMPLE.TEST', [APP]), APP);
    assert.equal(allowedCorsOrigin(`${APP}:443`, [APP]), null, 'an origin is compared as sent');
    assert.equal(allowedCorsOrigin(undefined, [APP]), null);
    assert.equal(allowedCorsOrigin('null', [APP]), null);
  });

  test('a preflight from an allowed origin: 204 before authentication, with the path’s methods', async () => {
    for (const url of ['/api/v1/agent-wallets', '/mcp', '/mcp/v1/tools/send_payment']) {
      const answer = await preflight(url, APP);
      assert.equal(answer.statusCode, 204, `${url}: ${answer.body}`);
      assert.equal(answer.headers['access-control-allow-origin'], APP);
      assert.equal(answer.headers.vary, 'Origin');
      const allowHeaders = String(answer.headers['access-control-allow-headers']);
      for (const name of ['authorization', 'content-type', 'idempotency-key', 'mcp-protocol-version'])
        assert.ok(allowHeaders.includes(name), `${url} allows ${name}`);
      assert.equal(
        answer.headers['access-control-allow-credentials'],
        undefined,
        'bearer tokens, no cookies',
      );
      assert.equal(answer.body, '');
    }
    const methods = String(
      (await preflight('/api/v1/agent-wallets', APP)).headers['access-control-allow-methods'],
    );
    assert.equal(methods, 'GET, HEAD, POST');
    // A static segment beside a parameter route offers its own methods, not the parameter route's DELETE.
    const beside = await preflight('/api/v1/auth/sessions/end-others', APP, 'DELETE');
    assert.equal(beside.headers['access-control-allow-methods'], 'POST');
  });

  test('an answer to an allowed origin names it and exposes what an integrator reads', async () => {
    const agent = await agentWithKey(h);
    const answer = await h.app.inject({
      method: 'GET',
      url: '/api/v1/agent-wallets',
      headers: { origin: APP, authorization: `Bearer ${agent.user.token}` },
    });
    assert.equal(answer.statusCode, 200, answer.body);
    assert.equal(answer.headers['access-control-allow-origin'], APP);
    const exposed = String(answer.headers['access-control-expose-headers']);
    for (const name of ['x-request-id', 'retry-after', 'ratelimit-remaining', 'www-authenticate'])
      assert.ok(exposed.includes(name), `exposes ${name}`);
    const refused = await h.app.inject({
      method: 'GET',
      url: '/api/v1/agent-wallets',
      headers: { origin: APP },
    });
    assert.equal(
      refused.statusCode,
      401,
      'the preflight opened nothing: the request itself is authenticated',
    );
    assert.equal(refused.headers['access-control-allow-origin'], APP, 'a page can read why it was refused');
  });

  test('any other origin: 403 ORIGIN_NOT_ALLOWED with no CORS header, preflight or not', async () => {
    const answer = await preflight('/api/v1/agent-wallets', OTHER);
    expectError(
      { status: answer.statusCode, body: JSON.parse(answer.body), raw: answer.body, headers: answer.headers },
      403,
      'ORIGIN_NOT_ALLOWED',
    );
    assert.equal(answer.headers['access-control-allow-origin'], undefined);
    const plain = await h.app.inject({ method: 'GET', url: '/api/v1/health', headers: { origin: OTHER } });
    assert.equal(plain.statusCode, 403);
    assert.equal(plain.headers['access-control-allow-origin'], undefined);
  });

  test('no Origin, or OPTIONS that is not a preflight, or an unknown path: as before, no CORS headers', async () => {
    const server = await h.app.inject({ method: 'GET', url: '/api/v1/health' });
    assert.equal(server.statusCode, 200);
    assert.equal(server.headers['access-control-allow-origin'], undefined);
    const options = await h.app.inject({ method: 'OPTIONS', url: '/api/v1/health' });
    assert.equal(options.statusCode, 405);
    const unknown = await preflight('/api/v1/no-such-route', APP);
    assert.equal(unknown.statusCode, 404);
  });
});

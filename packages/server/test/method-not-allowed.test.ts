// RFC 9110 section 15.5.6: every path of the published OpenAPI document answers a method it does not have with
// 405, an `Allow` header listing the methods it has (HEAD wherever GET is), and the failure envelope with code
// METHOD_NOT_ALLOWED — before authentication, so a client learns the method is wrong, not that it lacks a token.
// A path no route has is still a 404 (issue 27, finding d). A path belongs to the most specific route that matches
// it (a static segment before a parameter, as OpenAPI matches): /auth/sessions/end-others is POST only, though
// /auth/sessions/{id} has DELETE.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from './support/harness.ts';
import { call } from './support/http.ts';

// QUERY (RFC 10008) takes a body, and Fastify refuses one without a Content-Type before any handler: the 405 comes
// first.
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'QUERY'] as const;

describe('405 Method Not Allowed with Allow', () => {
  let h: Harness;
  let paths: Record<string, Record<string, unknown>>;
  before(async () => {
    h = await startHarness('sqlite', 'method-not-allowed');
    paths = (await call(h.app, 'GET', '/api/v1/openapi.json')).body.paths;
  });
  after(() => h?.close());

  test('every documented path × every method it lacks', async () => {
    let checked = 0;
    for (const [template, operations] of Object.entries(paths)) {
      const url = template.replace(/\{[^}]+\}/g, 'abc123');
      // Its own operations only: /sessions/end-others also fills /sessions/{id}, but a concrete path comes first.
      const own = Object.keys(operations).map((m) => m.toUpperCase());
      if (own.includes('GET')) own.push('HEAD');
      const allow = [...new Set(own)].sort().join(', ');
      for (const method of METHODS.filter((m) => !own.includes(m))) {
        const answer = await h.app.inject({ method, url });
        const where = `${method} ${url}`;
        assert.equal(answer.statusCode, 405, `${where}: ${answer.body}`);
        assert.equal(answer.headers.allow, allow, where);
        if (method === 'HEAD') continue; // no body
        const body = JSON.parse(answer.body);
        assert.equal(body.success, false, where);
        assert.equal(body.error.code, 'METHOD_NOT_ALLOWED', where);
        assert.match(body.error.message, /does not answer/, where);
        checked += 1;
      }
    }
    assert.ok(checked > 300, `checked ${checked}`);
  });

  test('a path shared by several routes lists them all; a trailing slash and a query change nothing', async () => {
    const answer = await h.app.inject({ method: 'PUT', url: '/api/v1/agent-wallets/?page=2' });
    assert.equal(answer.statusCode, 405);
    assert.equal(answer.headers.allow, 'GET, HEAD, POST');
  });

  test('a static segment beside a parameter route is its own path: the parameter route’s methods are a 405 there', async () => {
    for (const [method, url, allow] of [
      ['DELETE', '/api/v1/auth/sessions/end-others', 'POST'],
      ['GET', '/api/v1/auth/sessions/end-others', 'POST'],
      ['DELETE', '/api/v1/auth/passkeys/registration-options', 'POST'],
      ['DELETE', '/api/v1/auth/passkeys/authentication-options/', 'POST'],
      ['PATCH', '/api/v1/members/invitations', 'GET, HEAD, POST'],
      ['PATCH', '/api/v1/agent-wallets/abc/policies/simulate', 'POST'],
    ] as const) {
      const answer = await h.app.inject({ method, url, headers: { authorization: 'Bearer not-a-token' } });
      assert.equal(answer.statusCode, 405, `${method} ${url}: ${answer.body}`);
      assert.equal(answer.headers.allow, allow, `${method} ${url}`);
    }
    // The parameter route itself still answers its methods (here: no valid session).
    const own = await h.app.inject({ method: 'DELETE', url: '/api/v1/auth/sessions/abc123' });
    assert.equal(own.statusCode, 401, own.body);
  });

  test('the methods a path has still work, and unknown paths stay 404', async () => {
    assert.equal((await h.app.inject({ method: 'HEAD', url: '/api/v1/health' })).statusCode, 200);
    for (const [method, url] of [
      ['DELETE', '/api/v1/no-such-thing'],
      ['GET', '/api/v1/agent-wallets/abc/nothing'],
      ['POST', '/nothing/here'],
    ] as const) {
      const answer = await h.app.inject({ method, url });
      assert.equal(answer.statusCode, 404, `${method} ${url}`);
      assert.equal(JSON.parse(answer.body).error.code, 'NOT_FOUND');
      assert.equal(answer.headers.allow, undefined);
    }
  });

  test('GET and DELETE /mcp (no stream, no sessions) are 405 Allow: POST like any other path', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const answer = await h.app.inject({ method, url: '/mcp', headers: { accept: 'text/event-stream' } });
      assert.equal(answer.statusCode, 405);
      assert.equal(answer.headers.allow, 'POST');
    }
  });
});

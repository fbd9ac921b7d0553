// The Host header decided the OAuth issuer (found by an outside security test): with PUBLIC_URL unset,
// `Host: evil.example` on /.well-known/oauth-authorization-server answered endpoints under http://evil.example:<port>,
// though /api and /mcp already refused that host. Now the rule is the same on every path: a server bound to
// loopback refuses a Host that does not name it (403 ORIGIN_NOT_ALLOWED) wherever the request goes, and every URL
// the server hands out is built from PUBLIC_URL, an ALLOWED_ORIGINS origin or a loopback name — never from a Host
// nobody configured (behind a proxy or on a public interface, such a request is refused, or the /mcp challenge goes
// without its metadata URL). The rule does not depend on the store: SQLite only.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { countRows } from './support/foundation.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { call, expectError, type Reply } from './support/http.ts';

const EVIL = 'evil.example:8787';
const AS_METADATA = '/.well-known/oauth-authorization-server';
const PR_METADATA = '/.well-known/oauth-protected-resource/mcp';
const REGISTRATION = {
  redirect_uris: ['http://127.0.0.1:7/callback'],
  client_name: 'Host test',
  token_endpoint_auth_method: 'none',
};

/** Every kind of path: protocol metadata, OAuth endpoints, the dashboard, metrics, the API, MCP, a 404. */
const PATHS: ReadonlyArray<[method: 'GET' | 'POST', path: string, body?: unknown]> = [
  ['GET', AS_METADATA],
  ['GET', PR_METADATA],
  ['GET', '/.well-known/oauth-protected-resource'],
  ['POST', '/oauth/register', REGISTRATION],
  ['POST', '/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x' }],
  ['POST', '/oauth/revoke', { token: 'x' }],
  ['GET', '/'],
  ['GET', '/oauth/authorize'],
  ['GET', '/metrics'],
  ['GET', '/api/v1/health'],
  ['GET', '/api/v1/openapi.json'],
  ['POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }],
  ['GET', '/no/such/path'],
];

const get = (h: Harness, path: string, headers: Record<string, string>) =>
  call(h.app, 'GET', path, undefined, { headers });

/** Nothing in the answer points at the host the request named. */
function assertNoEvilUrl(reply: Reply): void {
  assert.doesNotMatch(reply.raw, /https?:\/\/evil\.example/, reply.raw);
  assert.doesNotMatch(String(reply.headers['www-authenticate'] ?? ''), /evil\.example/);
  assert.doesNotMatch(String(reply.headers.location ?? ''), /evil\.example/);
}

describe('a loopback server refuses a Host that does not name it, on every path', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', 'host_loopback', { env: { METRICS_TOKEN: 'm'.repeat(32) } });
  });
  after(() => h?.close());

  test('Host: evil.example is a 403 ORIGIN_NOT_ALLOWED everywhere, and registers nothing', async () => {
    const clients = await countRows(h, 'oauth_clients');
    for (const [method, path, body] of PATHS) {
      const reply = await call(h.app, method, path, body, { headers: { host: EVIL } });
      expectError(reply, 403, 'ORIGIN_NOT_ALLOWED');
      assert.match(reply.body.error.message, /does not name this server/, `${method} ${path}`);
      assertNoEvilUrl(reply);
    }
    assert.equal(await countRows(h, 'oauth_clients'), clients);
    // A loopback name followed by what a URL parser reads as credentials is not a loopback name.
    for (const host of ['localhost:@evil.example', '127.0.0.1:80@evil.example']) {
      const reply = await get(h, AS_METADATA, { host });
      expectError(reply, 403, 'ORIGIN_NOT_ALLOWED');
      assert.doesNotMatch(String(reply.body.issuer ?? ''), /evil/);
    }
  });

  test('the loopback names it does answer to name the issuer', async () => {
    for (const host of ['127.0.0.1:8787', 'localhost:8787', '[::1]:8787']) {
      const metadata = await get(h, AS_METADATA, { host });
      assert.equal(metadata.status, 200, metadata.raw);
      assert.equal(metadata.body.issuer, `http://${host}`);
      assert.equal(metadata.body.token_endpoint, `http://${host}/oauth/token`);
      assert.equal((await get(h, PR_METADATA, { host })).body.resource, `http://${host}/mcp`);
    }
  });
});

describe('on a public interface without PUBLIC_URL, URLs are built only from hosts it knows', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', 'host_public', {
      env: { HOST: '0.0.0.0', ALLOWED_ORIGINS: 'https://wallet.example.com' },
    });
  });
  after(() => h?.close());

  test('an unknown Host gets no metadata naming it: 403 saying to set PUBLIC_URL', async () => {
    for (const path of [AS_METADATA, PR_METADATA, '/.well-known/oauth-protected-resource']) {
      const reply = await get(h, path, { host: EVIL });
      expectError(reply, 403, 'ORIGIN_NOT_ALLOWED');
      assert.match(reply.body.error.message, /set PUBLIC_URL/);
      assertNoEvilUrl(reply);
    }
    const token = await call(
      h.app,
      'POST',
      '/oauth/token',
      { grant_type: 'refresh_token', refresh_token: 'x' },
      {
        headers: { host: EVIL },
      },
    );
    expectError(token, 403, 'ORIGIN_NOT_ALLOWED');
  });

  test('the /mcp challenge to an unknown Host goes without resource_metadata rather than point there', async () => {
    const reply = await call(
      h.app,
      'POST',
      '/mcp',
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      {
        headers: { host: EVIL },
      },
    );
    assert.equal(reply.status, 401, reply.raw);
    assert.equal(String(reply.headers['www-authenticate']), 'Bearer realm="agent-wallet"');
    const known = await call(
      h.app,
      'POST',
      '/mcp',
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      {
        headers: { host: 'wallet.example.com' },
      },
    );
    assert.match(
      String(known.headers['www-authenticate']),
      /resource_metadata="https:\/\/wallet\.example\.com\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
  });

  test('an ALLOWED_ORIGINS host names itself with that origin’s scheme; a loopback name with its own', async () => {
    const allowed = await get(h, AS_METADATA, { host: 'wallet.example.com' });
    assert.equal(allowed.status, 200, allowed.raw);
    assert.equal(allowed.body.issuer, 'https://wallet.example.com');
    assert.equal(
      (await get(h, AS_METADATA, { host: 'localhost:8787' })).body.issuer,
      'http://localhost:8787',
    );
  });
});

describe('behind a trusted proxy, a forwarded host nobody configured names nothing', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', 'host_proxy', { env: { TRUSTED_PROXIES: '1' } });
  });
  after(() => h?.close());

  test('X-Forwarded-Host: evil.example is refused; the metadata never names it', async () => {
    const headers = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };
    for (const path of [AS_METADATA, PR_METADATA]) {
      const reply = await get(h, path, headers);
      expectError(reply, 403, 'ORIGIN_NOT_ALLOWED');
      assertNoEvilUrl(reply);
    }
  });
});

describe('with PUBLIC_URL, every URL is PUBLIC_URL’s, whatever the Host', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', 'host_public_url', {
      env: { HOST: '0.0.0.0', PUBLIC_URL: 'https://wallet.example.com' },
    });
  });
  after(() => h?.close());

  test('Host: evil.example still gets https://wallet.example.com', async () => {
    const reply = await get(h, AS_METADATA, { host: EVIL });
    assert.equal(reply.status, 200, reply.raw);
    assert.equal(reply.body.issuer, 'https://wallet.example.com');
    assertNoEvilUrl(reply);
  });
});

describe('a loopback server reached through a proxy that keeps the Host answers PUBLIC_URL’s host', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', 'host_loopback_public_url', {
      env: { PUBLIC_URL: 'https://wallet.example.com' },
    });
  });
  after(() => h?.close());

  test('Host: wallet.example.com is known; evil.example is not', async () => {
    const known = await get(h, AS_METADATA, { host: 'wallet.example.com' });
    assert.equal(known.status, 200, known.raw);
    assert.equal(known.body.issuer, 'https://wallet.example.com');
    expectError(await get(h, AS_METADATA, { host: EVIL }), 403, 'ORIGIN_NOT_ALLOWED');
  });
});

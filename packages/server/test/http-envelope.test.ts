// What every response of the HTTP layer shares: the envelopes, the parser's refusals, security headers,
// request ids and the OpenAPI document.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { call, expectError, fundedUser, type Reply, type TestUser } from './support/http.ts';

const BODY_LIMIT = 64 * 1024;

/** Every foundation route, as OpenAPI spells its path. */
const FOUNDATION_ROUTES: Array<[string, string]> = [
  ['get', '/api/v1/health'],
  ['post', '/api/v1/auth/signup'],
  ['post', '/api/v1/auth/login'],
  ['post', '/api/v1/auth/logout'],
  ['get', '/api/v1/auth/me'],
  ['get', '/api/v1/wallet'],
  ['get', '/api/v1/wallet/balance'],
  ['get', '/api/v1/wallet/deposits'],
  ['post', '/api/v1/wallet/sandbox/deposit'],
  ['post', '/api/v1/agent-wallets'],
  ['get', '/api/v1/agent-wallets'],
  ['get', '/api/v1/agent-wallets/{walletId}'],
  ['patch', '/api/v1/agent-wallets/{walletId}'],
  ['post', '/api/v1/agent-wallets/{walletId}/fund'],
  ['post', '/api/v1/agent-wallets/{walletId}/withdraw'],
  ['post', '/api/v1/agent-wallets/{walletId}/freeze'],
  ['post', '/api/v1/agent-wallets/{walletId}/unfreeze'],
  ['get', '/api/v1/agent-wallets/{walletId}/transactions'],
  ['get', '/api/v1/agent-wallets/{walletId}/transactions/{transactionId}'],
];

function assertCommonHeaders(reply: Reply): void {
  const csp = String(reply.headers['content-security-policy'] ?? '');
  assert.match(csp, /frame-ancestors 'none'/, `no frame-ancestors 'none' in ${JSON.stringify(csp)}`);
  assert.equal(reply.headers['x-content-type-options'], 'nosniff');
  assert.equal(typeof reply.headers['x-request-id'], 'string');
  assert.ok(String(reply.headers['x-request-id']).length > 0);
  const permissions = String(reply.headers['permissions-policy'] ?? '');
  for (const feature of ['camera=()', 'microphone=()', 'geolocation=()', 'payment=()', 'usb=()']) {
    assert.ok(permissions.includes(feature), `${feature} missing from ${JSON.stringify(permissions)}`);
  }
  assert.match(permissions, /publickey-credentials-get=\(self\)/, 'passkeys stay usable by the dashboard');
}

// Outside finding 15: HSTS once the service is reached over https, on API answers and documents alike.
// Known before any test is registered: with --test-force-exit, a file whose first tests finish while it still
// awaits this would be ended before its suites ran.
const targets = await storeTargets();
describe('Strict-Transport-Security follows PUBLIC_URL', () => {
  const hsts = async (publicUrl: string) => {
    const h = await startHarness('sqlite', 'http_hsts', { env: { PUBLIC_URL: publicUrl } });
    try {
      return await Promise.all(
        ['/api/v1/health', '/api/v1/wallet', '/'].map(async (url) => {
          const reply = await call(h.app, 'GET', url);
          assertCommonHeaders(reply);
          return reply.headers['strict-transport-security'];
        }),
      );
    } finally {
      await h.close();
    }
  };

  test('https: one year, subdomains included, on every answer', async () => {
    assert.deepEqual(
      await hsts('https://wallet.example.com'),
      Array(3).fill('max-age=31536000; includeSubDomains'),
    );
  });

  test('http: none', async () => {
    assert.deepEqual(await hsts('http://wallet.internal:8787'), [undefined, undefined, undefined]);
  });
});

for (const target of targets) {
  describe(`HTTP envelope (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let user: TestUser;
    let walletId: string;
    before(async () => {
      h = await startHarness(target.name, 'http_envelope');
      ({ user, walletId } = await fundedUser(h.app, '10'));
    });
    after(() => h.close());

    test('an unknown route under /api/v1 is a 404 NOT_FOUND envelope, with or without a token', async () => {
      for (const [method, url] of [
        ['GET', '/api/v1/nothing'],
        ['POST', '/api/v1/nothing'],
        ['GET', '/api/v1/agent-wallets/x/y/z/w'],
        ['GET', '/api/v2/wallet'],
      ] as const) {
        for (const token of [undefined, user.token]) {
          const reply = await call(h.app, method, url, undefined, token === undefined ? {} : { token });
          expectError(reply, 404, 'NOT_FOUND');
          assert.deepEqual(Object.keys(reply.body).sort(), ['error', 'success']);
          assert.match(String(reply.headers['content-type']), /^application\/json/);
          assertCommonHeaders(reply);
        }
      }
    });

    test('a known path with a method it lacks is a 405 METHOD_NOT_ALLOWED envelope with Allow (RFC 9110)', async () => {
      for (const [method, url, allow] of [
        ['DELETE', '/api/v1/agent-wallets', 'GET, HEAD, POST'],
        ['PUT', '/api/v1/wallet', 'GET, HEAD'],
      ] as const) {
        for (const token of [undefined, user.token]) {
          const reply = await call(h.app, method, url, undefined, token === undefined ? {} : { token });
          expectError(reply, 405, 'METHOD_NOT_ALLOWED');
          assert.equal(reply.headers.allow, allow);
          assert.deepEqual(Object.keys(reply.body).sort(), ['error', 'success']);
          assertCommonHeaders(reply);
        }
      }
    });

    test('malformed JSON is a 400 VALIDATION_ERROR envelope', async () => {
      for (const body of [
        '{',
        '{"label": "a",}',
        "{'label': 'a'}",
        '{"label": NaN}',
        '{"label"}',
        'label=a',
      ]) {
        const reply = await user.api.post('/api/v1/agent-wallets', body);
        expectError(reply, 400, 'VALIDATION_ERROR');
        assert.match(reply.body.error.message, /JSON/);
        assertCommonHeaders(reply);
      }
    });

    test('a prototype-poisoning body is a 400 envelope', async () => {
      for (const body of [
        '{"label":"a","__proto__":{"x":1}}',
        '{"label":"a","constructor":{"prototype":{"x":1}}}',
      ]) {
        expectError(await user.api.post('/api/v1/agent-wallets', body), 400, 'VALIDATION_ERROR');
      }
    });

    test('a body over 64 KiB is a 413 PAYLOAD_TOO_LARGE envelope; exactly 64 KiB is read', async () => {
      const make = (size: number) => {
        const skeleton = JSON.stringify({ label: 'a', pad: '' });
        return JSON.stringify({ label: 'a', pad: 'x'.repeat(size - skeleton.length) });
      };
      assert.equal(make(BODY_LIMIT).length, BODY_LIMIT);
      const over = await user.api.post('/api/v1/agent-wallets', make(BODY_LIMIT + 1));
      expectError(over, 413, 'PAYLOAD_TOO_LARGE');
      assertCommonHeaders(over);
      // At the limit the body is parsed: the unknown field is what is refused, not the size.
      const at = await user.api.post('/api/v1/agent-wallets', make(BODY_LIMIT));
      expectError(at, 400, 'VALIDATION_ERROR');
      assert.match(at.body.error.message, /pad/);
      const huge = await call(h.app, 'POST', '/api/v1/auth/login', 'x'.repeat(5 * BODY_LIMIT));
      expectError(huge, 413, 'PAYLOAD_TOO_LARGE');
    });

    test('a body that is not JSON (text/plain, form, none of it declared) is a 400', async () => {
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        const reply = await user.api.post('/api/v1/agent-wallets', '{"label":"a"}', {
          headers: { 'content-type': contentType },
        });
        expectError(reply, 400, 'VALIDATION_ERROR');
        assert.match(reply.body.error.message, /Content-Type/);
      }
      const charset = await user.api.post('/api/v1/agent-wallets', '{"label":"utf8"}', {
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      assert.equal(charset.status, 201, charset.raw);
    });

    test('an empty body with Content-Type application/json on POST /freeze works', async () => {
      const reply = await call(h.app, 'POST', `/api/v1/agent-wallets/${walletId}/freeze`, '', {
        token: user.token,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.data.frozen, true);
      assertCommonHeaders(reply);
      const unfreeze = await call(h.app, 'POST', `/api/v1/agent-wallets/${walletId}/unfreeze`, '  ', {
        token: user.token,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(unfreeze.status, 200, unfreeze.raw);
    });

    test('security headers and a request id on successes, errors and 401s alike', async () => {
      const replies = [
        await call(h.app, 'GET', '/api/v1/health'),
        await user.api.get('/api/v1/wallet'),
        await user.api.post('/api/v1/agent-wallets', {}),
        await call(h.app, 'GET', '/api/v1/wallet'),
        await user.api.get('/api/v1/agent-wallets/wal_nope'),
      ];
      assert.deepEqual(
        replies.map((r) => r.status),
        [200, 200, 400, 401, 404],
      );
      for (const reply of replies) assertCommonHeaders(reply);
      assertCommonHeaders(await call(h.app, 'GET', '/'));
    });

    test('no Strict-Transport-Security without an https PUBLIC_URL', async () => {
      for (const url of ['/api/v1/health', '/']) {
        assert.equal((await call(h.app, 'GET', url)).headers['strict-transport-security'], undefined, url);
      }
    });

    test('request ids are unique and cannot be forged by the client', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 5; i += 1) {
        const reply = await call(h.app, 'GET', '/api/v1/health', undefined, {
          headers: { 'x-request-id': 'forged-id' },
        });
        ids.add(String(reply.headers['x-request-id']));
      }
      assert.equal(ids.size, 5);
      assert.ok(!ids.has('forged-id'));
    });

    test('a URL with invalid percent-encoding is a 400 envelope, not a framework error body', async () => {
      const reply = await user.api.get('/api/v1/agent-wallets/%FF');
      assert.equal(reply.status, 400, reply.raw);
      assert.equal(reply.body?.success, false, `not an envelope: ${reply.raw}`);
      assert.equal(reply.body.error.code, 'VALIDATION_ERROR');
    });

    test('no response ever carries a stack trace or a framework error shape', async () => {
      const replies = [
        await user.api.post('/api/v1/agent-wallets', { label: 7 }),
        await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: 1 }),
        await user.api.get('/api/v1/agent-wallets?limit=0'),
        await user.api.post('/api/v1/auth/logout', { x: 1 }),
      ];
      for (const reply of replies) {
        assert.ok(reply.status >= 400 && reply.status < 500, `${reply.status} ${reply.raw}`);
        assert.equal(reply.body?.success, false, `not an envelope: ${reply.raw}`);
        assert.ok(!('statusCode' in reply.body), `a framework error body: ${reply.raw}`);
        assert.ok(!/\n\s+at |node_modules|\.ts:\d+/.test(reply.raw), `a stack trace: ${reply.raw}`);
      }
    });

    test('GET /api/v1/openapi.json is an OpenAPI 3.1 document listing every route', async () => {
      const reply = await call(h.app, 'GET', '/api/v1/openapi.json');
      assert.equal(reply.status, 200, reply.raw);
      const doc = reply.body;
      assert.match(doc.openapi, /^3\.1\./);
      assert.equal(typeof doc.info.title, 'string');
      assert.equal(typeof doc.info.version, 'string');
      for (const [method, path] of FOUNDATION_ROUTES) {
        assert.ok(
          doc.paths?.[path]?.[method] !== undefined,
          `${method.toUpperCase()} ${path} is not documented`,
        );
      }
      assert.equal(doc.paths['/api/v1/openapi.json'], undefined, 'the document lists itself');
      assert.deepEqual(doc.paths['/api/v1/agent-wallets/{walletId}/fund'].post.security, [{ userJwt: [] }]);
      assert.deepEqual(doc.paths['/api/v1/auth/login'].post.security, []);
      assert.equal(doc.components.securitySchemes.userJwt.scheme, 'bearer');
      const create = doc.paths['/api/v1/agent-wallets'].post;
      assert.ok(create.responses['201'] !== undefined, 'creation is documented as 201');
      assert.ok(create.requestBody !== undefined, 'the request body is documented');
      assert.ok(doc.servers.length > 0, 'servers is not empty');
      const ids: string[] = [];
      for (const [path, operations] of Object.entries(
        doc.paths as Record<string, Record<string, { operationId?: string; responses: object }>>,
      )) {
        for (const [method, op] of Object.entries(operations)) {
          assert.match(
            op.operationId ?? '',
            /^[a-z][A-Za-z0-9]+$/,
            `${method} ${path} has a method-like operationId`,
          );
          ids.push(op.operationId ?? '');
          for (const [code, response] of Object.entries(
            op.responses as Record<string, { description: string }>,
          )) {
            assert.notEqual(
              response.description,
              'Default Response',
              `${method} ${path} ${code} is described`,
            );
          }
        }
      }
      assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
      assert.equal(doc.paths['/api/v1/webhooks'].post.operationId, 'createWebhook');
      assert.ok(doc.paths['/mcp'].post.requestBody !== undefined, 'POST /mcp documents its body');
    });
  });
}

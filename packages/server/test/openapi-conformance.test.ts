// The OpenAPI document describes the real answers: real successes and real errors of several routes and tools
// validate against the response schemas the document publishes (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses),
// and the tool route documents a request body a generated client can send.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { createKey, fund, OUTSIDE_ADDRESS, tool } from './support/agent.helpers.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { call, fundedUser, type Reply } from './support/http.ts';

describe('OpenAPI conformance of real responses', () => {
  let h: Harness;
  // biome-ignore lint/suspicious/noExplicitAny: the document is JSON
  let doc: any;
  const ajv = new Ajv2020({ strict: false, allErrors: true });

  before(async () => {
    h = await startHarness('sqlite', 'openapi-conformance');
    doc = (await call(h.app, 'GET', '/api/v1/openapi.json')).body;
  });
  after(() => h?.close());

  function assertConforms(path: string, method: string, reply: Reply): void {
    const responses = doc.paths[path][method].responses;
    const documented = responses[String(reply.status)] ?? responses[`${String(reply.status)[0]}XX`];
    assert.ok(documented !== undefined, `${method} ${path} ${reply.status} is documented`);
    const schema = documented.content['application/json'].schema;
    const validate = ajv.compile(schema);
    assert.ok(
      validate(reply.body),
      `${method} ${path} ${reply.status}: ${ajv.errorsText(validate.errors)}\n${reply.raw}`,
    );
  }

  test('REST successes and errors match their documented schemas', async () => {
    const { user, walletId } = await fundedUser(h.app, '100');
    assertConforms(
      '/api/v1/agent-wallets/{walletId}',
      'get',
      await user.api.get(`/api/v1/agent-wallets/${walletId}`),
    );
    assertConforms('/api/v1/agent-wallets', 'get', await user.api.get('/api/v1/agent-wallets'));
    assertConforms(
      '/api/v1/agent-wallets/{walletId}/fund',
      'post',
      await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '5' }),
    );
    assertConforms(
      '/api/v1/agent-wallets/{walletId}/fund',
      'post',
      await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: 'five' }),
    );
    assertConforms('/api/v1/wallet', 'get', await call(h.app, 'GET', '/api/v1/wallet'));
  });

  test('tool successes, denials and errors (with "tool" and "data") match the tool route’s schemas', async () => {
    const { user, walletId } = await fundedUser(h.app, '100');
    await fund(user, walletId, '50');
    const key = await createKey(user, walletId);
    await user.api.post(`/api/v1/agent-wallets/${walletId}/policies`, {
      type: 'spend_cap_per_tx',
      params: { limit: '1' },
    });
    const path = '/mcp/v1/tools/{name}';
    assertConforms(path, 'post', await tool(h.app, key, 'check_balance'));
    assertConforms(
      path,
      'post',
      await tool(h.app, key, 'send_payment', { toAddress: OUTSIDE_ADDRESS, amount: '1' }),
    );
    const denied = await tool(h.app, key, 'send_payment', { toAddress: OUTSIDE_ADDRESS, amount: '2' });
    assert.equal(denied.status, 422);
    assert.ok(denied.body.data !== undefined && denied.body.tool === 'send_payment');
    assertConforms(path, 'post', denied);
    assertConforms(path, 'post', await tool(h.app, key, 'send_payment', { toAddress: 'nope', amount: '1' }));
  });

  test('policy params are typed: each type’s params validate, nonsense does not', () => {
    const body = doc.paths['/api/v1/agent-wallets/{walletId}/policies'].post.requestBody;
    const validate = ajv.compile(body.content['application/json'].schema);
    const ok = (params: unknown, type = 'spend_cap_window') => validate({ type, params });
    assert.ok(ok({ limit: '5', window: '24h' }), ajv.errorsText(validate.errors));
    assert.ok(ok({ days: ['mon'], start: '09:00', end: '17:00', timezone: 'UTC' }, 'time_window'));
    assert.ok(ok({ count: 3, window: '1h' }, 'tx_count_cap'));
    assert.equal(ok({ limit: '5', window: '24h', extra: true }), false);
    assert.equal(ok({ window: 'forever' }), false);
  });

  test('the tool route documents a request body: each tool’s params, wrapped or bare', () => {
    const body = doc.paths['/mcp/v1/tools/{name}'].post.requestBody;
    assert.ok(body !== undefined, 'a generated client can send a body');
    const validate = ajv.compile(body.content['application/json'].schema);
    assert.ok(
      validate({ params: { toAddress: OUTSIDE_ADDRESS, amount: '1' } }),
      ajv.errorsText(validate.errors),
    );
    assert.ok(validate({ toAddress: OUTSIDE_ADDRESS, amount: '1', memo: 'bare params' }));
    assert.ok(validate({}), 'check_balance takes no params');
  });
});

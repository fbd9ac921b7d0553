// The OpenAPI document describes the real answers: real successes and real errors of several routes and tools
// validate against the response schemas the document publishes (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses),
// and the tool route documents a request body a generated client can send.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { createKey, fund, OUTSIDE_ADDRESS, tool } from './support/agent.helpers.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { call, fundedUser, type Reply } from './support/http.ts';

// biome-ignore lint/suspicious/noExplicitAny: the document is JSON
type Json = any;

describe('OpenAPI conformance of real responses', () => {
  let h: Harness;
  let doc: Json;
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
    assertConforms('/mcp/v1/tools/check_balance', 'post', await tool(h.app, key, 'check_balance'));
    const path = '/mcp/v1/tools/send_payment';
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
    // Each type with its own params only (issue 27): a cap's params under another type are refused.
    assert.equal(ok({ limit: '5' }, 'tx_count_cap'), false);
    assert.equal(ok({ addresses: [OUTSIDE_ADDRESS] }, 'spend_cap_daily'), false);
  });

  test('a body of alternatives is a oneOf of complete objects: {} is none of them, and each branch names its fields', () => {
    const bodyOf = (path: string) => doc.paths[path].post.requestBody.content['application/json'].schema;
    // Every operation: a oneOf branch of a body declares the fields it requires (a bare {required: [...]} beside
    // shared properties let a generator — Schemathesis — take {} for a valid step-up).
    for (const [path, item] of Object.entries<Record<string, Json>>(doc.paths)) {
      for (const [method, operation] of Object.entries<Json>(item)) {
        const schema = operation.requestBody?.content?.['application/json']?.schema;
        for (const branch of schema?.oneOf ?? []) {
          const where = `${method} ${path} ${JSON.stringify(branch).slice(0, 120)}`;
          assert.ok((branch.required ?? []).length > 0, where);
          for (const name of branch.required)
            assert.ok(branch.properties?.[name] !== undefined, `${where}: ${name}`);
        }
      }
    }
    const stepUp = bodyOf('/api/v1/auth/step-up');
    assert.equal(stepUp.properties, undefined, 'no fields beside the alternatives');
    const proof = ajv.compile(stepUp);
    assert.equal(proof({}), false, '{} proves nothing');
    assert.ok(proof({ password: 'correct horse battery' }) && proof({ code: '123456' }));
    assert.equal(proof({ password: 'x', code: '123456' }), false, 'exactly one');
    const factor = ajv.compile(bodyOf('/api/v1/auth/login/mfa'));
    assert.equal(factor({ mfaToken: 't' }), false);
    assert.ok(factor({ mfaToken: 't', code: '123456' }));
    const alert = ajv.compile(bodyOf('/api/v1/alerts'));
    assert.ok(alert({ type: 'balance_below', params: { amount: '10' } }), ajv.errorsText(alert.errors));
    assert.ok(alert({ type: 'cap_used', walletId: 'w', params: { percent: 80 } }));
    assert.equal(
      alert({ type: 'cap_used', params: { percent: 80 } }),
      false,
      'cap_used watches an agent wallet',
    );
    assert.equal(alert({ type: 'balance_below', params: { amount: '10', percent: 80 } }), false);
    assert.equal(alert({ type: 'cap_used', walletId: 'w', params: { amount: '10' } }), false);
  });

  test('an OAuth authorization request’s fixed values are enums: response_type "code", S256', () => {
    const request = {
      clientId: 'client',
      redirectUri: 'http://127.0.0.1:7/cb',
      responseType: 'code',
      codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      codeChallengeMethod: 'S256',
      resource: 'https://wallet.example/mcp',
    };
    for (const path of ['/api/v1/oauth/consent/preview', '/api/v1/oauth/consent/deny']) {
      const schema = doc.paths[path].post.requestBody.content['application/json'].schema;
      assert.deepEqual(schema.properties.responseType.enum, ['code'], path);
      assert.deepEqual(schema.properties.codeChallengeMethod.enum, ['S256'], path);
      const validate = ajv.compile(schema);
      assert.ok(validate(request), `${path}: ${ajv.errorsText(validate.errors)}`);
      assert.ok(validate({ ...request, scope: 'write read' }));
      for (const change of [
        { responseType: 'token' },
        { codeChallengeMethod: 'plain' },
        { codeChallenge: 'short' },
        { scope: 'read read' },
        { scope: 'admin' },
      ])
        assert.equal(validate({ ...request, ...change }), false, `${path} ${JSON.stringify(change)}`);
    }
  });

  test('each tool is an operation of its own: its params (wrapped or bare) and its data', () => {
    const body = (name: string) => {
      const requestBody = doc.paths[`/mcp/v1/tools/${name}`].post.requestBody;
      return {
        required: requestBody.required,
        validate: ajv.compile(requestBody.content['application/json'].schema),
      };
    };
    const send = body('send_payment');
    assert.equal(send.required, true);
    assert.ok(
      send.validate({ params: { toAddress: OUTSIDE_ADDRESS, amount: '1' } }),
      ajv.errorsText(send.validate.errors),
    );
    assert.ok(send.validate({ toAddress: OUTSIDE_ADDRESS, amount: '1', memo: 'bare params' }));
    assert.equal(send.validate({ toAddress: OUTSIDE_ADDRESS }), false, 'amount is required');
    assert.equal(send.validate({ page: 1 }), false, 'another tool’s params');
    const balance = body('check_balance');
    assert.equal(balance.required, false, 'check_balance takes no body at all');
    assert.ok(balance.validate({}) && balance.validate(null) && balance.validate({ params: {} }));
    assert.equal(balance.validate({ toAddress: OUTSIDE_ADDRESS }), false);
    const check = body('check_payment');
    assert.ok(check.validate({ toAddress: OUTSIDE_ADDRESS, amount: '1' }));
    assert.ok(check.validate({ paymentRequirements: { scheme: 'exact' } }));
    assert.equal(check.validate({}), false, 'toAddress and amount, or paymentRequirements');
    assert.equal(check.validate({ toAddress: OUTSIDE_ADDRESS, amount: '1', paymentRequirements: {} }), false);
    assert.equal(doc.paths['/mcp/v1/tools/{name}'], undefined, 'the generic path is not an operation');
    assert.equal(doc.paths['/mcp/v1/tools/x402_fetch'], undefined, 'x402 tools exist on the evm rail only');
    const ok =
      doc.paths['/mcp/v1/tools/check_balance'].post.responses['200'].content['application/json'].schema;
    assert.deepEqual(ok.properties.tool, { type: 'string', const: 'check_balance' });
  });
});

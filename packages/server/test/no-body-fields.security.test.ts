// Issue 10, defect 7, for every route: a route without a body schema (DELETE, freeze, logout, revoke, …) takes
// no body fields. Unknown fields are a 400 before anything runs (contract section 1: no mass assignment).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { EVM_ONLY_ROUTES, ROUTES } from '../src/routes/index.ts';
import { agentWithKey } from './support/agent.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { call, expectError } from './support/http.ts';

describe('routes without a body schema refuse body fields', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', 'no_body_fields');
  });
  after(() => h.close());

  test('each answers {"x":1} and [] with 400 VALIDATION_ERROR, and {} is not refused for its body', async () => {
    const agent = await agentWithKey(h);
    // This harness is on the sandbox rail: the evm rail's own routes (the owners' revocation) are not mounted here.
    const bodiless = ROUTES.filter(
      (r) =>
        r.body === undefined && r.method !== 'GET' && !r.bodyValidatedByHandler && !EVM_ONLY_ROUTES.has(r),
    );
    assert.ok(bodiless.length >= 1, 'DELETE /policies/:id has no body schema');
    for (const route of bodiless) {
      const url = route.url.replace(':walletId', agent.walletId).replace(/:[A-Za-z]+/g, 'xyz');
      const token = route.auth === 'apiKey' ? agent.key : agent.user.token;
      for (const body of ['{"x":1}', '[]']) {
        const reply = await call(h.app, route.method, url, body, { token });
        expectError(reply, 400, 'VALIDATION_ERROR');
        assert.match(reply.body.error.message, /takes no body fields/, `${route.method} ${route.url}`);
      }
      const empty = await call(h.app, route.method, url, '{}', { token });
      assert.ok(!/takes no body fields/.test(empty.raw), `${route.method} ${route.url}: ${empty.raw}`);
    }
  });

  test('every other write route refuses an unknown field too (its schema is strict)', async () => {
    const agent = await agentWithKey(h);
    // This harness is on the sandbox rail: the evm rail's own routes are not mounted here (404).
    const strict = ROUTES.filter(
      (r) => r.body !== undefined && r.method !== 'GET' && !EVM_ONLY_ROUTES.has(r),
    );
    for (const route of strict) {
      const url = route.url.replace(':walletId', agent.walletId).replace(/:[A-Za-z]+/g, 'xyz');
      const token = route.auth === 'apiKey' ? agent.key : agent.user.token;
      const reply = await call(h.app, route.method, url, { zzz_unknown: 1 }, { token });
      expectError(reply, 400, 'VALIDATION_ERROR');
    }
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  addAgentWallet,
  agentState,
  agentWithKey,
  assertAgentStateUnchanged,
  assertNoKeyMaterial,
  createKey,
  EXTERNAL,
  expectToolError,
  keyUrl,
  READ_TOOLS,
  TOOL_NAMES,
  type ToolName,
  tool,
  toolOk,
  toolUrl,
  unknownKey,
  WRITE_TOOLS,
  walletOf,
} from '../../../test/support/agent.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError } from '../../../test/support/http.ts';

const PARAMS: Record<ToolName, Record<string, unknown>> = {
  check_balance: {},
  get_tx_history: {},
  send_payment: { toAddress: EXTERNAL, amount: '1' },
  request_approval: { toAddress: EXTERNAL, amount: '1' },
  check_payment: { toAddress: EXTERNAL, amount: '1' },
};

for (const target of await storeTargets()) {
  describe(`POST /mcp/v1/tools/:name security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tool_call_security');
    });
    after(() => h.close());

    test('no key, a session JWT or a non-bearer credential is a 401 MCP_AUTH_MISSING on every tool', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      for (const name of TOOL_NAMES) {
        for (const authorization of [
          undefined,
          `Bearer ${agent.user.token}`,
          agent.key,
          `Basic ${Buffer.from(`${agent.user.email}:${agent.user.password}`).toString('base64')}`,
          'Bearer',
        ]) {
          const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
          const reply = await call(h.app, 'POST', toolUrl(name), { params: PARAMS[name] }, { headers });
          expectToolError(reply, name, 401, 'MCP_AUTH_MISSING');
          assertNoKeyMaterial(reply, [agent.key]);
          assert.ok(!reply.raw.includes(agent.user.token), 'the refusal echoes the JWT');
        }
      }
      await assertAgentStateUnchanged(h, state, 'an unauthenticated tool call');
    });

    test('unknown, garbage, revoked and expired keys are a 401 MCP_AUTH_INVALID on every tool', async () => {
      const agent = await agentWithKey(h);
      const revoked = await createKey(agent.user, agent.walletId, { label: 'revoked' });
      await agent.user.api.post(keyUrl(agent.walletId, revoked.id, 'revoke'));
      const expiring = await createKey(agent.user, agent.walletId, {
        label: 'expiring',
        expiresAt: new Date(h.clock.nowMs() + 3_600_000).toISOString(),
      });
      toolOk(await tool(h, expiring.key, 'check_balance'), 'check_balance');
      h.clock.advanceSeconds(3599);
      toolOk(await tool(h, expiring.key, 'check_balance'), 'check_balance');
      h.clock.advanceSeconds(1);
      const state = await agentState(h);
      const flipped = `${agent.key.slice(0, -1)}${agent.key.endsWith('A') ? 'B' : 'A'}`;
      const keys = [
        unknownKey(),
        'svc_live_garbage',
        `svc_live_${'a'.repeat(200)}`,
        flipped,
        revoked.key,
        expiring.key,
      ];
      for (const name of TOOL_NAMES) {
        for (const key of keys) {
          const reply = await tool(h, key, name, PARAMS[name]);
          expectToolError(reply, name, 401, 'MCP_AUTH_INVALID');
          assertNoKeyMaterial(reply, [key, agent.key]);
        }
      }
      await assertAgentStateUnchanged(h, state, 'a refused key');
      toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
    });

    test('a read-only key on a write tool is a 403 INSUFFICIENT_SCOPE naming "write"; nothing moves', async () => {
      const agent = await agentWithKey(h, { scopes: ['read'] });
      const state = await agentState(h);
      for (const name of WRITE_TOOLS) {
        for (const params of [PARAMS[name], { ...PARAMS[name], idempotencyKey: 'scope-1' }, {}]) {
          const reply = await tool(h, agent.key, name, params);
          expectToolError(reply, name, 403, 'INSUFFICIENT_SCOPE');
          assert.match(reply.body.error.message, /"write"/);
          assertNoKeyMaterial(reply, [agent.key]);
        }
      }
      await assertAgentStateUnchanged(h, state, 'a write with a read-only key');
      for (const name of READ_TOOLS) toolOk(await tool(h, agent.key, name, PARAMS[name]), name);
    });

    test('a write-only key on a read tool is a 403 INSUFFICIENT_SCOPE naming "read"', async () => {
      const agent = await agentWithKey(h, { scopes: 'write' });
      for (const name of READ_TOOLS) {
        const reply = await tool(h, agent.key, name, PARAMS[name]);
        expectToolError(reply, name, 403, 'INSUFFICIENT_SCOPE');
        assert.match(reply.body.error.message, /"read"/);
        assert.ok(!reply.raw.includes('100.000000'), 'the refusal shows the balance');
      }
      toolOk(await tool(h, agent.key, 'send_payment', PARAMS.send_payment), 'send_payment');
    });

    test("a key of wallet A never reads or moves wallet B's money: no param, query or header points elsewhere", async () => {
      const a = await agentWithKey(h);
      const b = await agentWithKey(h, { fund: '50' });
      const bSibling = await addAgentWallet(a.user, '10');
      const before = await agentState(h);
      for (const target of [b.walletId, bSibling.id]) {
        for (const name of TOOL_NAMES) {
          for (const field of ['walletId', 'wallet', 'fromWalletId', 'from', 'keyId']) {
            const reply = await tool(h, a.key, name, { ...PARAMS[name], [field]: target });
            expectToolError(reply, name, 400, 'VALIDATION_ERROR');
          }
        }
      }
      await assertAgentStateUnchanged(h, before, 'a redirected tool call');
      // Query strings and headers are not read: the key alone decides the wallet.
      const viaQuery = await call(
        h.app,
        'POST',
        `${toolUrl('check_balance')}?walletId=${b.walletId}`,
        {},
        { token: a.key },
      );
      assert.equal(toolOk(viaQuery, 'check_balance').walletId, a.walletId);
      const viaHeader = await call(h.app, 'POST', toolUrl('send_payment'), PARAMS.send_payment, {
        token: a.key,
        headers: { 'x-wallet-id': b.walletId },
      });
      toolOk(viaHeader, 'send_payment');
      assert.equal((await walletOf(a.user, a.walletId)).balance, '99.000000');
      assert.equal((await walletOf(b.user, b.walletId)).balance, '50.000000');
      assert.equal((await walletOf(a.user, bSibling.id)).balance, '10.000000');
      const history = toolOk(await tool(h, a.key, 'get_tx_history', { limit: 100 }), 'get_tx_history');
      const bHistory = await b.user.api.get(`/api/v1/agent-wallets/${b.walletId}/transactions`);
      const bIds = new Set(bHistory.body.data.transactions.map((t: { id: string }) => t.id));
      for (const tx of history.transactions)
        assert.ok(!bIds.has(tx.id), "wallet A's history shows B's transaction");
    });

    test("idempotency keys are per wallet: the same key on another wallet never replays that wallet's result", async () => {
      const a = await agentWithKey(h);
      const b = await agentWithKey(h);
      const params = { toAddress: EXTERNAL, amount: '3', idempotencyKey: 'shared-key' };
      const fromB = toolOk(await tool(h, b.key, 'send_payment', params), 'send_payment');
      const fromA = toolOk(await tool(h, a.key, 'send_payment', params), 'send_payment');
      assert.notEqual(fromA.txId, fromB.txId);
      // Other params under the same key on another wallet are no conflict either.
      toolOk(
        await tool(h, a.key, 'request_approval', { ...params, idempotencyKey: 'b-only' }),
        'request_approval',
      );
      const conflictFree = await tool(h, b.key, 'send_payment', {
        ...params,
        amount: '4',
        idempotencyKey: 'b-only',
      });
      toolOk(conflictFree, 'send_payment');
      assert.equal((await walletOf(a.user, a.walletId)).balance, '94.000000');
      assert.equal((await walletOf(b.user, b.walletId)).balance, '93.000000');
      const history = toolOk(await tool(h, a.key, 'get_tx_history'), 'get_tx_history');
      assert.ok(!history.transactions.some((t: { id: string }) => t.id === fromB.txId));
    });

    test('an API key is refused on REST routes with 401 UNAUTHORIZED', async () => {
      const agent = await agentWithKey(h);
      for (const [method, url] of [
        ['GET', `/api/v1/agent-wallets/${agent.walletId}`],
        ['GET', '/api/v1/wallet'],
        ['POST', `/api/v1/agent-wallets/${agent.walletId}/withdraw`],
        ['POST', `/api/v1/agent-wallets/${agent.walletId}/unfreeze`],
      ] as const) {
        const reply = await call(h.app, method, url, method === 'POST' ? { amount: '1' } : undefined, {
          token: agent.key,
        });
        expectError(reply, 401, 'UNAUTHORIZED');
        assertNoKeyMaterial(reply, [agent.key]);
      }
      assert.equal((await walletOf(agent.user, agent.walletId)).balance, '100.000000');
    });

    test('no error response of a tool shows the API key', async () => {
      const agent = await agentWithKey(h);
      const replies = [
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: agent.key }),
        await tool(h, agent.key, 'send_payment', { toAddress: agent.key, amount: '1' }),
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '1000' }),
        await tool(h, agent.key, 'nope'),
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '0', memo: agent.key }),
        await tool(h, agent.key, 'get_tx_history', { status: agent.key }),
      ];
      assert.deepEqual(
        replies.map((r) => r.status),
        [400, 400, 422, 404, 400, 400],
      );
      for (const reply of replies) assertNoKeyMaterial(reply, [agent.key]);
    });
  });
}

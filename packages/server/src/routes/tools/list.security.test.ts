import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { agentWithKey, assertNoKeyMaterial, createKey, keyUrl } from '../../../test/support/agent.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /mcp/v1/tools security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tools_list_security');
    });
    after(() => h.close());

    test('a session JWT is not an API key: 401 MCP_AUTH_MISSING', async () => {
      const agent = await agentWithKey(h);
      const reply = await call(h.app, 'GET', '/mcp/v1/tools', undefined, { token: agent.user.token });
      expectError(reply, 401, 'MCP_AUTH_MISSING');
      assert.ok(!reply.raw.includes(agent.user.token));
    });

    test('revoked and expired keys are a 401 MCP_AUTH_INVALID', async () => {
      const agent = await agentWithKey(h);
      const expiring = await createKey(agent.user, agent.walletId, {
        label: 'short',
        expiresAt: new Date(h.clock.nowMs() + 60_000).toISOString(),
      });
      assert.equal(
        (await call(h.app, 'GET', '/mcp/v1/tools', undefined, { token: expiring.key })).status,
        200,
      );
      await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'revoke'));
      const revoked = await call(h.app, 'GET', '/mcp/v1/tools', undefined, { token: agent.key });
      expectError(revoked, 401, 'MCP_AUTH_INVALID');
      assertNoKeyMaterial(revoked, [agent.key]);
      h.clock.advanceSeconds(59);
      assert.equal(
        (await call(h.app, 'GET', '/mcp/v1/tools', undefined, { token: expiring.key })).status,
        200,
      );
      h.clock.advanceSeconds(1);
      const expired = await call(h.app, 'GET', '/mcp/v1/tools', undefined, { token: expiring.key });
      expectError(expired, 401, 'MCP_AUTH_INVALID');
      assertNoKeyMaterial(expired, [expiring.key]);
    });

    test('the listing shows nothing of the wallet or the key', async () => {
      const agent = await agentWithKey(h);
      const reply = await call(h.app, 'GET', '/mcp/v1/tools', undefined, { token: agent.key });
      assertNoKeyMaterial(reply, [agent.key]);
      assert.ok(!reply.raw.includes(agent.walletId));
      assert.ok(!reply.raw.includes(agent.keyId));
      assert.ok(!reply.raw.toLowerCase().includes(agent.address.toLowerCase()));
    });
  });
}

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentState,
  agentWithKey,
  assertAgentStateUnchanged,
  assertNoKeyMaterial,
  keysUrl,
  sha256Hex,
  tool,
  toolOk,
} from '../../../test/support/agent.ts';
import { expectExpiredTokenRejected, expectRejectsBadCredentials } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError, fundedUser, signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets/:walletId/keys security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'keys_create_security');
    });
    after(() => h.close());

    test("another user's wallet is a 404 NOT_FOUND and no key is made", async () => {
      const owner = await fundedUser(h.app, '10');
      const intruder = await signupUser(h.app);
      const state = await agentState(h);
      const reply = await intruder.api.post(keysUrl(owner.walletId), { label: 'stolen', scopes: ['write'] });
      expectError(reply, 404, 'NOT_FOUND');
      await assertAgentStateUnchanged(h, state, "a key on another user's wallet");
    });

    test('only the SHA-256 of the key is stored: no column holds the key', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const created = (await user.api.post(keysUrl(walletId), { label: 'stored' })).body.data;
      const row = await h.services.store.db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.key_hash, sha256Hex(created.key));
      assert.equal(row.prefix, created.key.slice(0, 15));
      for (const value of Object.values(row)) {
        assert.ok(!String(value).includes(created.key), 'a column holds the key');
      }
    });

    test('REST refuses an API key, a missing token and every bad token with 401 UNAUTHORIZED', async () => {
      const agent = await agentWithKey(h);
      const other = await signupUser(h.app);
      const reply = await h.app.inject({
        method: 'POST',
        url: keysUrl(agent.walletId),
        headers: { authorization: `Bearer ${agent.key}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ label: 'self-made' }),
      });
      assert.equal(reply.statusCode, 401);
      assert.equal(JSON.parse(reply.body).error.code, 'UNAUTHORIZED');
      assert.ok(!reply.body.includes(agent.key));
      await expectRejectsBadCredentials(h, agent.user, other, 'POST', keysUrl(agent.walletId), {
        label: 'k',
      });
      await expectExpiredTokenRejected(h, agent.user, 'POST', keysUrl(agent.walletId), { label: 'k' });
    });

    test("a key is bound to the wallet it was made for, even among one user's wallets", async () => {
      const agent = await agentWithKey(h);
      const second = await agent.user.api.post('/api/v1/agent-wallets', { label: 'second' });
      const secondKey = (await agent.user.api.post(keysUrl(second.body.data.id), { label: 'k2' })).body.data;
      const a = toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
      const b = toolOk(await tool(h, secondKey.key, 'check_balance'), 'check_balance');
      assert.equal(a.walletId, agent.walletId);
      assert.equal(a.balance, '100.000000');
      assert.equal(b.walletId, second.body.data.id);
      assert.equal(b.balance, '0.000000');
    });

    test('the created key never appears in any later response of the owner', async () => {
      const agent = await agentWithKey(h);
      for (const url of [
        keysUrl(agent.walletId),
        `/api/v1/agent-wallets/${agent.walletId}`,
        '/api/v1/agent-wallets',
        `/api/v1/agent-wallets/${agent.walletId}/transactions`,
        `/api/v1/agent-wallets/${agent.walletId}/policies`,
      ]) {
        const reply = await agent.user.api.get(url);
        assert.equal(reply.status, 200, `${url}: ${reply.raw}`);
        assertNoKeyMaterial(reply, [agent.key]);
      }
    });
  });
}

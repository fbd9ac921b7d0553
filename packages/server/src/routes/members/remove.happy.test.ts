// DELETE /members/:id, what goes right: the answer is `{id, deleted: true}` as every DELETE's (contract
// section 1), the member is gone from the list and their session is dead; the API keys they created or rotated
// and the OAuth connections they allowed end with them and are listed in the answer, a code they allowed that no
// client redeemed yet is refused, and what others made keeps working.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  addAgentWallet,
  agentWithKey,
  createKey,
  expectToolError,
  keyUrl,
  listKeys,
  tool,
  toolOk,
} from '../../../test/support/agent.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { addMember, expectError, signupUser } from '../../../test/support/http.ts';
import { allowClient } from '../../../test/support/oauth-flow.ts';

const byId = <T extends { id: string }>(items: T[]) => [...items].sort((a, b) => a.id.localeCompare(b.id));

for (const target of await storeTargets()) {
  describe(`DELETE /members/:id happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'members_remove_happy');
    });
    after(() => h.close());

    test('200 {id, deleted: true}; the member is no longer listed and their session is dead', async () => {
      const owner = await signupUser(h.app, 'remover');
      const { member } = await addMember(h.app, owner, 'viewer');
      const reply = await owner.api.delete(`/api/v1/members/${member.id}`);
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.success, true);
      assert.equal(reply.body.data.id, member.id);
      assert.equal(reply.body.data.deleted, true);
      assert.deepEqual(
        [reply.body.data.revokedKeys, reply.body.data.revokedOAuth, reply.body.data.keptKeys],
        [[], [], []],
      );
      const listed = await owner.api.get('/api/v1/members');
      assert.deepEqual(
        listed.body.data.items.map((m: { id: string }) => m.id),
        [owner.id],
      );
      expectError(await member.api.get('/api/v1/auth/me'), 401, 'UNAUTHORIZED');
    });

    test('the keys and OAuth connections the member made end with them, listed; the others keep working', async () => {
      const agent = await agentWithKey(h);
      const owner = agent.user;
      const other = await addAgentWallet(owner, '10');
      const { member: admin } = await addMember(h.app, owner, 'admin');
      const first = await createKey(admin, agent.walletId, { label: 'admin one' });
      const rotated = await admin.api.post(keyUrl(agent.walletId, first.id, 'rotate'), {
        gracePeriodSeconds: 3600,
      });
      assert.equal(rotated.status, 201, rotated.raw);
      const second = await createKey(admin, other.id, { label: 'admin two' });
      const client = await allowClient(h.app, admin, agent.walletId, 'Admin Host');
      const tokens = await client.redeem();
      assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
      const accessToken = tokens.body.access_token!;
      const unredeemed = await allowClient(h.app, admin, other.id, 'Later Host');
      const ownersOwn = await createKey(owner, other.id, { label: 'owner two' });
      const connection = (await listKeys(owner, agent.walletId)).find((k) => k.type === 'oauth');
      // All of it works before the removal; the first key still in its rotation grace.
      for (const key of [first.key, rotated.body.data.key, second.key, accessToken]) {
        toolOk(await tool(h, key, 'check_balance'), 'check_balance');
      }

      const reply = await owner.api.delete(`/api/v1/members/${admin.id}`);
      assert.equal(reply.status, 200, reply.raw);
      assert.deepEqual(
        byId(reply.body.data.revokedKeys),
        byId([
          { id: first.id, label: 'admin one', walletId: agent.walletId },
          { id: rotated.body.data.id, label: 'admin one', walletId: agent.walletId },
          { id: second.id, label: 'admin two', walletId: other.id },
        ]),
      );
      assert.deepEqual(reply.body.data.revokedOAuth, [
        { id: connection?.id, clientName: 'Admin Host', walletId: agent.walletId },
      ]);
      assert.deepEqual([reply.body.data.keptKeys, reply.body.data.keptOAuth], [[], []]);
      for (const key of [first.key, rotated.body.data.key, second.key, accessToken]) {
        expectToolError(await tool(h, key, 'check_balance'), 'check_balance', 401, 'MCP_AUTH_INVALID');
      }
      const late = await unredeemed.redeem();
      assert.equal(late.status, 400, JSON.stringify(late.body));
      assert.equal(late.body.error, 'invalid_grant');
      for (const key of [agent.key, ownersOwn.key])
        toolOk(await tool(h, key, 'check_balance'), 'check_balance');
      const listed = await listKeys(owner, agent.walletId);
      const now = new Date(h.clock.nowMs()).toISOString();
      for (const id of [first.id, rotated.body.data.id, connection?.id]) {
        const key = listed.find((k) => k.id === id);
        assert.deepEqual([key?.status, key?.revokedAt], ['revoked', now], `${id} in the list`);
      }
    });
  });
}

// DELETE /members/:id, what is refused or kept: `keepKeys=true` keeps what the member made working (and says
// which); a keepKeys that is neither true nor false, an unknown member and the last owner are refused and end
// nothing — the member, their session and their keys stay as they were.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { agentWithKey, createKey, tool, toolOk } from '../../../test/support/agent.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { addMember, expectError } from '../../../test/support/http.ts';
import { allowClient } from '../../../test/support/oauth-flow.ts';

for (const target of await storeTargets()) {
  describe(`DELETE /members/:id errors (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'members_remove_error');
    });
    after(() => h.close());

    test('keepKeys=true: the member leaves, what they made keeps working and is listed as kept', async () => {
      const agent = await agentWithKey(h);
      const { member: admin } = await addMember(h.app, agent.user, 'admin');
      const made = await createKey(admin, agent.walletId, { label: 'kept key' });
      const client = await allowClient(h.app, admin, agent.walletId, 'Kept Host');
      const tokens = await client.redeem();
      assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
      const reply = await agent.user.api.delete(`/api/v1/members/${admin.id}?keepKeys=true`);
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.data.deleted, true);
      assert.deepEqual([reply.body.data.revokedKeys, reply.body.data.revokedOAuth], [[], []]);
      assert.deepEqual(reply.body.data.keptKeys, [
        { id: made.id, label: 'kept key', walletId: agent.walletId },
      ]);
      assert.deepEqual(
        reply.body.data.keptOAuth.map((c: { clientName: string }) => c.clientName),
        ['Kept Host'],
      );
      expectError(await admin.api.get('/api/v1/auth/me'), 401, 'UNAUTHORIZED');
      for (const key of [made.key, tokens.body.access_token!, agent.key]) {
        toolOk(await tool(h, key, 'check_balance'), 'check_balance');
      }
      // keepKeys=false is the default spelled out.
      const { member: other } = await addMember(h.app, agent.user, 'admin');
      const theirs = await createKey(other, agent.walletId, { label: 'ended key' });
      const ended = await agent.user.api.delete(`/api/v1/members/${other.id}?keepKeys=false`);
      assert.deepEqual(
        ended.body.data.revokedKeys.map((k: { id: string }) => k.id),
        [theirs.id],
      );
    });

    test('refused removals end nothing: a bad keepKeys, an unknown member, the last owner', async () => {
      const agent = await agentWithKey(h);
      const owner = agent.user;
      const { member: admin } = await addMember(h.app, owner, 'admin');
      const made = await createKey(admin, agent.walletId, { label: 'still here' });
      for (const value of ['yes', '1', 'TRUE', '']) {
        expectError(
          await owner.api.delete(`/api/v1/members/${admin.id}?keepKeys=${value}`),
          400,
          'VALIDATION_ERROR',
        );
      }
      expectError(await owner.api.delete(`/api/v1/members/${admin.id}?keep=true`), 400, 'VALIDATION_ERROR');
      expectError(await owner.api.delete('/api/v1/members/usr_unknown'), 404, 'NOT_FOUND');
      expectError(await owner.api.delete(`/api/v1/members/${owner.id}`), 409, 'INVALID_STATE');
      assert.equal((await admin.api.get('/api/v1/auth/me')).status, 200);
      for (const key of [made.key, agent.key]) toolOk(await tool(h, key, 'check_balance'), 'check_balance');
      const members = await owner.api.get('/api/v1/members');
      assert.equal(members.body.data.items.length, 2);
    });
  });
}

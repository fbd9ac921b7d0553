// DELETE /members/:id against a departed member's keys: what they made is refused at once on every instance —
// two instances sharing the store and Redis, the other one holding the key in its lookup cache — including an
// OAuth connection's access token; and no one outside the organization can remove its members or end their keys.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { agentWithKey, createKey, expectToolError, tool, toolOk } from '../../../test/support/agent.ts';
import { type Harness, secondInstance, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { addMember, call, expectError } from '../../../test/support/http.ts';
import { allowClient } from '../../../test/support/oauth-flow.ts';
import { probeService, REDIS_URL, uniqueName } from '../../../test/support/services.ts';
import type { RunningServer } from '../../server.ts';

// A multi-instance deployment shares key revocations through Redis's key-change signal.
const redis = await probeService('Redis', REDIS_URL);

for (const target of await storeTargets()) {
  const skip = target.skip || (redis.available ? false : redis.skip);
  describe(`DELETE /members/:id security (${target.name})`, { skip }, () => {
    let h: Harness;
    let second: RunningServer;
    before(async () => {
      const prefix = `${uniqueName('members_remove')}:`;
      h = await startHarness(target.name, 'members_remove_security', {
        env: { REDIS_URL, REDIS_PREFIX: prefix },
      });
      second = await secondInstance(h);
    });
    after(async () => {
      await second?.close();
      await h?.close();
    });

    const balance = (app: Harness['app'], key: string) =>
      call(app, 'POST', '/mcp/v1/tools/check_balance', {}, { token: key });

    test('a removed member’s key and OAuth token are refused at once on both instances', async () => {
      const agent = await agentWithKey(h);
      const { member: admin } = await addMember(h.app, agent.user, 'admin');
      const made = await createKey(admin, agent.walletId, { label: 'departing' });
      const client = await allowClient(h.app, admin, agent.walletId, 'Departing Host');
      const tokens = await client.redeem();
      assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
      const credentials = [made.key, tokens.body.access_token!];
      // Both instances accept them, and hold them in their lookup caches.
      for (const app of [h.app, second.app]) {
        for (const key of credentials) assert.equal((await balance(app, key)).status, 200);
      }
      const removed = await call(h.app, 'DELETE', `/api/v1/members/${admin.id}`, undefined, {
        token: agent.user.token,
      });
      assert.equal(removed.status, 200, removed.raw);
      for (const app of [second.app, h.app]) {
        for (const key of credentials) {
          expectToolError(await balance(app, key), 'check_balance', 401, 'MCP_AUTH_INVALID');
        }
      }
      // The owner's own key was never the admin's: it works on both.
      for (const app of [h.app, second.app]) assert.equal((await balance(app, agent.key)).status, 200);
    });

    test('another organization cannot remove a member, nor end their keys (404, nothing changes)', async () => {
      const agent = await agentWithKey(h);
      const { member: admin } = await addMember(h.app, agent.user, 'admin');
      const made = await createKey(admin, agent.walletId, { label: 'theirs' });
      const stranger = await agentWithKey(h);
      expectError(await stranger.user.api.delete(`/api/v1/members/${admin.id}`), 404, 'NOT_FOUND');
      expectError(await stranger.user.api.delete(`/api/v1/members/${agent.user.id}`), 404, 'NOT_FOUND');
      // A member who may not manage members (an admin) cannot either.
      expectError(await admin.api.delete(`/api/v1/members/${agent.user.id}`), 403, 'FORBIDDEN_ROLE');
      assert.equal((await admin.api.get('/api/v1/auth/me')).status, 200);
      toolOk(await tool(h, made.key, 'check_balance'), 'check_balance');
    });
  });
}

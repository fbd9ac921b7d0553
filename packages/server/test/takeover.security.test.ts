// The organization takeover an outside test found (contract section 8's step-up list): a stale session of an
// owner WITHOUT a second factor could invite a new owner, demote or remove the real ones, mint keys and OAuth
// grants, and silence every alarm. Each of those now needs a proof of presence (the password, for a user with no
// factor) no older than STEP_UP_MAX_AGE_SECONDS; refused, it is 403 STEP_UP_REQUIRED and nothing changes.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { agentWithKey, keysUrl, keyUrl, listKeys } from './support/agent.ts';
import { countRows } from './support/foundation.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { addMember, call, expectError, type Reply, type TestUser } from './support/http.ts';

const STEP_UP_AGE_SECONDS = 300;
const REDIRECT = 'http://127.0.0.1:7/callback';

for (const target of await storeTargets()) {
  describe(`a stale owner session without a factor (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'takeover', {
        env: {
          WEBHOOK_ALLOW_PRIVATE: 'true',
          RATE_LIMITS: JSON.stringify({ signup: 1_000, default: 100_000, agent_wallets: 100_000 }),
        },
      });
    });
    after(() => h?.close());

    async function consentRequest() {
      const metadata = await call(h.app, 'GET', '/.well-known/oauth-protected-resource/mcp');
      const registered = await call(h.app, 'POST', '/oauth/register', {
        redirect_uris: [REDIRECT],
        client_name: 'Takeover Host',
        token_endpoint_auth_method: 'none',
      });
      assert.equal(registered.status, 201, registered.raw);
      return {
        clientId: registered.body.client_id as string,
        redirectUri: REDIRECT,
        responseType: 'code',
        codeChallenge: createHash('sha256').update(randomBytes(32)).digest('base64url'),
        codeChallengeMethod: 'S256',
        resource: `${metadata.body.authorization_servers[0]}/mcp`,
        scope: 'read write',
        state: 'st',
      };
    }

    /** Everything a takeover would change, read by the owner's own session (reads need no step-up). */
    async function organizationState(owner: TestUser, walletId: string) {
      const read = async (path: string) => {
        const reply = await owner.api.get(path);
        assert.equal(reply.status, 200, reply.raw);
        return reply.body.data;
      };
      return {
        members: await read('/api/v1/members'),
        invitations: await read('/api/v1/members/invitations'),
        keys: await listKeys(owner, walletId),
        alerts: await read('/api/v1/alerts'),
        webhooks: await read('/api/v1/webhooks'),
        notifications: await read('/api/v1/auth/notifications'),
        oauthCodes: await countRows(h, 'oauth_codes'),
      };
    }

    test('cannot invite an owner or admin, change or remove a member, mint a key or grant, or silence an alarm', async () => {
      const agent = await agentWithKey(h, { master: '100', fund: '10' });
      const owner = agent.user;
      const { member: coOwner } = await addMember(h.app, owner, 'owner');
      const { member: admin } = await addMember(h.app, owner, 'admin');
      const alert = await owner.api.post('/api/v1/alerts', {
        type: 'balance_below',
        params: { amount: '5' },
      });
      assert.equal(alert.status, 201, alert.raw);
      const webhook = await owner.api.post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/hook' });
      assert.equal(webhook.status, 201, webhook.raw);
      const hookUrl = `/api/v1/webhooks/${webhook.body.data.id}`;
      const consent = await consentRequest();
      h.clock.advanceSeconds(STEP_UP_AGE_SECONDS + 1);

      const stateBefore = await organizationState(owner, agent.walletId);
      const attempts: Array<[string, () => Promise<Reply>]> = [
        [
          'invite an owner',
          () => owner.api.post('/api/v1/members/invitations', { email: 'x@evil.test', role: 'owner' }),
        ],
        [
          'invite an admin',
          () => owner.api.post('/api/v1/members/invitations', { email: 'y@evil.test', role: 'admin' }),
        ],
        ['demote a co-owner', () => owner.api.patch(`/api/v1/members/${coOwner.id}`, { role: 'viewer' })],
        ['promote an admin', () => owner.api.patch(`/api/v1/members/${admin.id}`, { role: 'owner' })],
        ['remove a co-owner', () => owner.api.delete(`/api/v1/members/${coOwner.id}`)],
        ['create a key', () => owner.api.post(keysUrl(agent.walletId), { label: 'thief' })],
        ['rotate a key', () => owner.api.post(keyUrl(agent.walletId, agent.keyId, 'rotate'), {})],
        [
          'allow an OAuth client',
          () =>
            owner.api.post('/api/v1/oauth/consent', {
              ...consent,
              decision: 'allow',
              walletId: agent.walletId,
            }),
        ],
        ['delete an alert', () => owner.api.delete(`/api/v1/alerts/${alert.body.data.id}`)],
        ['move a webhook', () => owner.api.patch(hookUrl, { url: 'http://127.0.0.1:9/evil' })],
        ['narrow a webhook', () => owner.api.patch(hookUrl, { events: ['deposit.credited'] })],
        ['delete a webhook', () => owner.api.delete(hookUrl)],
        [
          'turn security email off',
          () => owner.api.patch('/api/v1/auth/notifications', { email: { security: false } }),
        ],
      ];
      for (const [what, attempt] of attempts) {
        const reply = await attempt();
        assert.equal(reply.status, 403, `${what}: ${reply.raw}`);
        expectError(reply, 403, 'STEP_UP_REQUIRED');
        assert.deepEqual(reply.body.error.methods, ['password'], what);
      }
      assert.deepEqual(await organizationState(owner, agent.walletId), stateBefore, 'nothing changed');
      // The co-owner's session still works: the stale one removed nobody.
      assert.equal((await coOwner.api.get('/api/v1/auth/me')).status, 200);

      // What cannot take anything over still needs nothing from a user without a factor.
      const viewer = await owner.api.post('/api/v1/members/invitations', {
        email: 'v@ok.test',
        role: 'viewer',
      });
      assert.equal(viewer.status, 201, viewer.raw);
      const described = await owner.api.patch(hookUrl, { description: 'still here' });
      assert.equal(described.status, 200, described.raw);
      const emailOn = await owner.api.patch('/api/v1/auth/notifications', { email: { security: true } });
      assert.equal(emailOn.status, 200, emailOn.raw);
      const denied = await owner.api.post('/api/v1/oauth/consent', { ...consent, decision: 'deny' });
      assert.equal(denied.status, 200, denied.raw);

      // A wrong password proves nothing; the right one opens every door for STEP_UP_MAX_AGE_SECONDS.
      expectError(
        await owner.api.post('/api/v1/auth/step-up', { password: 'not it at all' }),
        401,
        'INVALID_CREDENTIALS',
      );
      expectError(
        await owner.api.patch(`/api/v1/members/${admin.id}`, { role: 'viewer' }),
        403,
        'STEP_UP_REQUIRED',
      );
      const stepped = await owner.api.post('/api/v1/auth/step-up', { password: owner.password });
      assert.equal(stepped.status, 200, stepped.raw);
      for (const [what, attempt] of attempts) {
        const reply = await attempt();
        assert.ok(reply.status === 200 || reply.status === 201, `${what} after step-up: ${reply.raw}`);
      }
      expectError(await coOwner.api.get('/api/v1/auth/me'), 401, 'UNAUTHORIZED');
    });

    test('a fresh login counts as presence; the same moves by an admin need it too', async () => {
      const agent = await agentWithKey(h);
      const { member: admin } = await addMember(h.app, agent.user, 'admin');
      const fresh = await admin.api.post(keysUrl(agent.walletId), { label: 'fresh session' });
      assert.equal(fresh.status, 201, fresh.raw);
      h.clock.advanceSeconds(STEP_UP_AGE_SECONDS + 1);
      const keysBefore = await listKeys(agent.user, agent.walletId);
      expectError(await admin.api.post(keysUrl(agent.walletId), { label: 'stale' }), 403, 'STEP_UP_REQUIRED');
      const alert = await agent.user.api.post('/api/v1/alerts', {
        type: 'balance_below',
        params: { amount: '1' },
      });
      assert.equal(alert.status, 201, alert.raw);
      expectError(await admin.api.delete(`/api/v1/alerts/${alert.body.data.id}`), 403, 'STEP_UP_REQUIRED');
      assert.deepEqual(await listKeys(agent.user, agent.walletId), keysBefore);
      assert.equal((await agent.user.api.get('/api/v1/alerts')).body.data.items.length, 1);
    });
  });
}

// Who may let an agent host in: a logged-in admin of the wallet's organization, with a fresh second factor when
// they have one. Everything else is refused and leaves no code behind; the answer and the audit log never hold
// the code (a bearer of the wallet until its exchange).
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { generate } from 'otplib';
import { agentWithKey } from '../../../test/support/agent.ts';
import { countRows, expectRejectsBadCredentials } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { addMember, call, expectError, signupUser, type TestUser } from '../../../test/support/http.ts';

const REDIRECT = 'http://127.0.0.1:7/callback';
const STEP_UP_AGE_SECONDS = 300;

for (const target of await storeTargets()) {
  describe(`POST /api/v1/oauth/consent security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let base: string;
    before(async () => {
      h = await startHarness(target.name, 'oauth_consent_security');
      const metadata = await call(h.app, 'GET', '/.well-known/oauth-protected-resource/mcp');
      base = metadata.body.authorization_servers[0];
    });
    after(() => h.close());

    const codes = () => countRows(h, 'oauth_codes');

    async function authorizationRequest() {
      const registered = await call(h.app, 'POST', '/oauth/register', {
        redirect_uris: [REDIRECT],
        client_name: 'Security Host',
        token_endpoint_auth_method: 'none',
      });
      assert.equal(registered.status, 201, registered.raw);
      const verifier = randomBytes(32).toString('base64url');
      return {
        clientId: registered.body.client_id as string,
        redirectUri: REDIRECT,
        responseType: 'code',
        codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
        codeChallengeMethod: 'S256',
        resource: `${base}/mcp`,
        scope: 'read write',
        state: 'st-sec',
      };
    }

    const allow = (user: TestUser, request: object, walletId: string, extra: object = {}) =>
      user.api.post('/api/v1/oauth/consent', { ...request, decision: 'allow', walletId, ...extra });

    test('no session, an API key, a forged or expired token: 401 UNAUTHORIZED, and no code is made', async () => {
      const agent = await agentWithKey(h);
      const request = await authorizationRequest();
      const body = { ...request, decision: 'allow', walletId: agent.walletId };
      expectError(await call(h.app, 'POST', '/api/v1/oauth/consent', body), 401, 'UNAUTHORIZED');
      expectError(
        await call(h.app, 'POST', '/api/v1/oauth/consent', body, { token: agent.key }),
        401,
        'UNAUTHORIZED',
      );
      const other = await signupUser(h.app);
      await expectRejectsBadCredentials(h, agent.user, other, 'POST', '/api/v1/oauth/consent', body);
      for (const path of ['/api/v1/oauth/consent/preview', '/api/v1/oauth/consent/deny'])
        await expectRejectsBadCredentials(h, agent.user, other, 'POST', path, request);
      assert.equal(await codes(), 0);
    });

    test('denying a wrong request redirects nowhere: an unregistered redirect URI is 400', async () => {
      const agent = await agentWithKey(h);
      const elsewhere = { ...(await authorizationRequest()), redirectUri: 'https://attacker.example/cb' };
      for (const reply of [
        await agent.user.api.post('/api/v1/oauth/consent/deny', elsewhere),
        await agent.user.api.post('/api/v1/oauth/consent', { ...elsewhere, decision: 'deny' }),
      ]) {
        expectError(reply, 400, 'OAUTH_INVALID_REQUEST');
        assert.equal(reply.raw.includes('redirectTo'), false, 'no redirect is built');
      }
    });

    test("another organization's wallet is a 404 NOT_FOUND; a wider scope than asked is refused", async () => {
      const victim = await agentWithKey(h);
      const intruder = await agentWithKey(h);
      const request = await authorizationRequest();
      const before = await codes();
      expectError(await allow(intruder.user, request, victim.walletId), 404, 'NOT_FOUND');
      const readOnly = { ...request, scope: 'read' };
      const widened = await allow(victim.user, readOnly, victim.walletId, { scopes: ['read', 'write'] });
      assert.equal(widened.status, 400, widened.raw);
      assert.equal(await codes(), before, 'nothing was granted');
    });

    test('below admin: allowing is 403 FORBIDDEN_ROLE; seeing who asks and denying are not', async () => {
      const owner = await agentWithKey(h);
      const request = await authorizationRequest();
      for (const role of ['viewer', 'approver']) {
        const { member } = await addMember(h.app, owner.user, role);
        const before = await codes();
        expectError(await allow(member, request, owner.walletId), 403, 'FORBIDDEN_ROLE');
        const preview = await member.api.post('/api/v1/oauth/consent/preview', request);
        assert.equal(preview.status, 200, preview.raw);
        assert.equal(preview.body.data.client.name, 'Security Host');
        const denied = await member.api.post('/api/v1/oauth/consent/deny', request);
        assert.equal(denied.status, 200, denied.raw);
        const back = new URL(denied.body.data.redirectTo);
        assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
        assert.deepEqual(
          [back.searchParams.get('error'), back.searchParams.get('state'), back.searchParams.get('code')],
          ['access_denied', 'st-sec', null],
        );
        assert.equal(await codes(), before, `a ${role} made a code`);
      }
      const { member: admin } = await addMember(h.app, owner.user, 'admin');
      const allowed = await allow(admin, request, owner.walletId);
      assert.equal(allowed.status, 200, allowed.raw);
    });

    test('with a second factor, an old session must step up first; the code is never in the audit log', async () => {
      const agent = await agentWithKey(h);
      const started = await agent.user.api.post('/api/v1/auth/mfa/totp');
      assert.equal(started.status, 200, started.raw);
      const secret: string = started.body.data.secret;
      const epoch = () => Math.floor(h.clock.nowMs() / 1000);
      const confirmed = await agent.user.api.post('/api/v1/auth/mfa/totp/confirm', {
        code: await generate({ secret, epoch: epoch() }),
      });
      assert.equal(confirmed.status, 200, confirmed.raw);
      h.clock.advanceSeconds(STEP_UP_AGE_SECONDS + 1);
      const request = await authorizationRequest();
      const before = await codes();
      expectError(await allow(agent.user, request, agent.walletId), 403, 'STEP_UP_REQUIRED');
      assert.equal(await codes(), before);
      const stepped = await agent.user.api.post('/api/v1/auth/step-up', {
        code: await generate({ secret, epoch: epoch() }),
      });
      assert.equal(stepped.status, 200, stepped.raw);
      const allowed = await allow(agent.user, request, agent.walletId);
      assert.equal(allowed.status, 200, allowed.raw);
      const code = new URL(allowed.body.data.redirectTo).searchParams.get('code');
      assert.ok(code !== null && code.length > 20);
      const audit = await agent.user.api.get('/api/v1/audit');
      assert.equal(audit.status, 200, audit.raw);
      const items: Array<{ action: string; walletId: string | null }> = audit.body.data.items;
      assert.ok(
        items.some((item) => /consent/i.test(item.action) && item.walletId === agent.walletId),
        `the consent is audited: ${audit.raw}`,
      );
      assert.equal(audit.raw.includes(code), false, 'the audit log holds the code');
      assert.equal(audit.raw.includes(request.codeChallenge), false, 'the audit log holds the challenge');
    });
  });
}

// OAuth for agent hosts (contract section 12), on the wire and on both stores: metadata, dynamic registration,
// the owner's consent, the code's exchange with PKCE and the resource, tokens that act exactly as an API key of
// the wallet with those scopes, rotation of refresh tokens (a reused one ends the family), revocation seen at once
// by a second instance — and what must be refused: another audience, a reused code, another redirect URI, a wrong
// verifier, a client metadata URL on a private address. (The browser flow with the MCP SDK's own OAuth client is
// in packages/dashboard/test/e2e-oauth.test.ts.)
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { hostname } from 'node:os';
import { after, before, describe, test } from 'node:test';
import type { RunningServer } from '../src/server.ts';
import { OAUTH_CLIENTS_MAX, purgeEndedOAuth } from '../src/services/oauth/authorization-server.ts';
import { agentWithKey, EXTERNAL, keysUrl, toolOk } from './support/agent.ts';
import { countRows } from './support/foundation.ts';
import { type Harness, secondInstance, startHarness, storeTargets } from './support/harness.ts';
import { call, type Reply } from './support/http.ts';
import { probeService, REDIS_URL, uniqueName } from './support/services.ts';

const targets = await storeTargets();
// Two instances see a revocation at once through Redis's key-change signal, as a multi-instance deployment runs.
const redis = await probeService('Redis', REDIS_URL);
const REDIRECT = 'http://127.0.0.1:7/callback';

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

const form = (params: Record<string, string>) => ({
  body: new URLSearchParams(params).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

for (const target of targets) {
  const skip = target.skip || (redis.available ? false : redis.skip);
  describe(`OAuth for agent hosts on ${target.name}`, { skip }, () => {
    let h: Harness;
    let second: RunningServer;
    let base: string;
    before(async () => {
      const prefix = `${uniqueName('oauth')}:`;
      h = await startHarness(target.name, 'oauth', { env: { REDIS_URL, REDIS_PREFIX: prefix } });
      second = await secondInstance(h);
      const metadata = await call(h.app, 'GET', '/.well-known/oauth-protected-resource/mcp');
      base = metadata.body.authorization_servers[0];
    });
    after(async () => {
      await second?.close();
      await h?.close();
    });

    const token = (params: Record<string, string>) => {
      const { body, headers } = form(params);
      return call(h.app, 'POST', '/oauth/token', body, { headers });
    };

    async function register(name = 'Test Host') {
      const reply = await call(h.app, 'POST', '/oauth/register', {
        redirect_uris: [REDIRECT],
        client_name: name,
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
      });
      assert.equal(reply.status, 201, reply.raw);
      return reply.body.client_id as string;
    }

    /** The owner allows `clientId` on the agent's wallet; answers the code and the verifier. */
    async function consent(
      agent: Awaited<ReturnType<typeof agentWithKey>>,
      clientId: string,
      scopes = ['read', 'write'],
    ) {
      const { verifier, challenge } = pkce();
      const request = {
        clientId,
        redirectUri: REDIRECT,
        responseType: 'code',
        codeChallenge: challenge,
        codeChallengeMethod: 'S256',
        resource: `${base}/mcp`,
        scope: 'read write',
        state: 'st-1',
      };
      const preview = await agent.user.api.post('/api/v1/oauth/consent/preview', request);
      assert.equal(preview.status, 200, preview.raw);
      const allowed = await agent.user.api.post('/api/v1/oauth/consent', {
        ...request,
        decision: 'allow',
        walletId: agent.walletId,
        scopes,
      });
      assert.equal(allowed.status, 200, allowed.raw);
      const redirect = new URL(allowed.body.data.redirectTo);
      assert.equal(`${redirect.origin}${redirect.pathname}`, REDIRECT);
      assert.equal(redirect.searchParams.get('state'), 'st-1');
      assert.equal(redirect.searchParams.get('iss'), base);
      return { code: redirect.searchParams.get('code')!, verifier, preview: preview.body.data };
    }

    async function connect(scopes = ['read', 'write']) {
      const agent = await agentWithKey(h, { master: '1000', fund: '100' });
      const clientId = await register();
      const { code, verifier } = await consent(agent, clientId, scopes);
      const tokens = await token({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: verifier,
        resource: `${base}/mcp`,
      });
      assert.equal(tokens.status, 200, tokens.raw);
      return { agent, clientId, code, verifier, tokens: tokens.body };
    }

    const balance = (accessToken: string, app = h.app) =>
      call(app, 'POST', '/mcp/v1/tools/check_balance', {}, { token: accessToken });

    test('metadata: RFC 9728 names this service; RFC 8414 lists the endpoints; /mcp challenges with it', async () => {
      const resource = await call(h.app, 'GET', '/.well-known/oauth-protected-resource/mcp');
      assert.equal(resource.body.resource, `${base}/mcp`);
      const server = await call(h.app, 'GET', '/.well-known/oauth-authorization-server');
      assert.equal(server.status, 200);
      assert.deepEqual(
        [server.body.issuer, server.body.authorization_endpoint, server.body.token_endpoint],
        [base, `${base}/oauth/authorize`, `${base}/oauth/token`],
      );
      assert.equal(server.body.registration_endpoint, `${base}/oauth/register`);
      assert.equal(server.body.revocation_endpoint, `${base}/oauth/revoke`);
      assert.deepEqual(server.body.code_challenge_methods_supported, ['S256']);
      assert.equal(server.body.client_id_metadata_document_supported, true);
      assert.deepEqual(server.body.scopes_supported, ['read', 'write']);
      // The protocol endpoints answer any origin, their refusals and unknown paths too; the API does not.
      assert.equal(server.headers['access-control-allow-origin'], '*');
      const badGrant = await token({ grant_type: 'password' });
      assert.deepEqual([badGrant.status, badGrant.headers['access-control-allow-origin']], [400, '*']);
      const unknown = await call(h.app, 'GET', '/.well-known/oauth-nothing-here');
      assert.deepEqual([unknown.status, unknown.headers['access-control-allow-origin']], [404, '*']);
      const api = await call(h.app, 'GET', '/api/v1/health');
      assert.equal(api.headers['access-control-allow-origin'], undefined);
      const unauthenticated = await call(h.app, 'POST', '/mcp', {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
      });
      assert.equal(unauthenticated.status, 401);
      assert.match(
        String(unauthenticated.headers['www-authenticate']),
        new RegExp(`^Bearer .*resource_metadata="${base}/\\.well-known/oauth-protected-resource/mcp"`),
      );
    });

    test('the token acts as a key of the wallet with those scopes, is listed as a connection, and pays once', async () => {
      const { agent, tokens } = await connect(['read', 'write']);
      assert.match(tokens.access_token, /^svc_oat_[0-9A-Za-z]{43}$/);
      assert.equal(tokens.token_type, 'Bearer');
      assert.equal(tokens.expires_in, 3600);
      assert.equal(tokens.scope, 'read write');
      assert.equal(
        toolOk(await balance(tokens.access_token, second.app), 'check_balance').walletId,
        agent.walletId,
      );
      const pay = () =>
        call(
          h.app,
          'POST',
          '/mcp/v1/tools/send_payment',
          { params: { toAddress: EXTERNAL, amount: '2', idempotencyKey: 'o-1' } },
          { token: tokens.access_token },
        );
      const [first, again] = [await pay(), await pay()];
      assert.equal(toolOk(first, 'send_payment').txId, toolOk(again, 'send_payment').txId);
      // A session route refuses it like any API key.
      assert.equal(
        (await call(h.app, 'GET', '/api/v1/wallet', undefined, { token: tokens.access_token })).status,
        401,
      );
      await h.services.keys.flushLastUsed();
      const listed = (await agent.user.api.get(keysUrl(agent.walletId))).body.data.items;
      const connection = listed.find((k: { type: string }) => k.type === 'oauth');
      assert.equal(connection.clientName, 'Test Host');
      assert.deepEqual(connection.scopes, ['read', 'write']);
      assert.notEqual(connection.lastUsedAt, null);
      assert.equal(listed.find((k: { type: string }) => k.type === 'api_key').clientName, null);
      assert.equal(JSON.stringify(listed).includes(tokens.access_token), false);
    });

    test('a read-only connection cannot pay; an access token ends after its hour', async () => {
      const { tokens } = await connect(['read']);
      const denied = await call(
        h.app,
        'POST',
        '/mcp/v1/tools/send_payment',
        { params: { toAddress: EXTERNAL, amount: '1' } },
        { token: tokens.access_token },
      );
      assert.equal(denied.body.error.code, 'INSUFFICIENT_SCOPE');
      h.clock.advanceMs(3_600_000);
      assert.equal((await balance(tokens.access_token)).status, 401);
    });

    /** key.revoked events stored for the owner (an endpoint row is written directly: no outbound URL here). */
    async function revokedEvents(userId: string): Promise<Array<{ id: string; type: string }>> {
      const rows = await h.services.store.db
        .selectFrom('webhook_events')
        .select(['data_json'])
        .where('user_id', '=', userId)
        .where('type', '=', 'key.revoked')
        .execute();
      return rows.map((r) => JSON.parse(r.data_json));
    }

    async function listenForKeyEvents(userId: string): Promise<void> {
      await h.services.store.db
        .insertInto('webhook_endpoints')
        .values({
          id: `we_${uniqueName('oauth')}`,
          user_id: userId,
          url: 'http://127.0.0.1:9/hook',
          events_json: JSON.stringify(['key.revoked']),
          description: null,
          secret: 'whsec_test-only',
          previous_secret: null,
          previous_secret_expires_at_ms: null,
          lease_holder: null,
          lease_until_ms: null,
          backoff_until_ms: null,
          created_at_ms: BigInt(h.clock.nowMs()),
          updated_at_ms: BigInt(h.clock.nowMs()),
        })
        .execute();
    }

    test('refresh rotates; a reused refresh token ends the family on every instance', async () => {
      const { agent, clientId, tokens } = await connect();
      await listenForKeyEvents(agent.user.id);
      const refresh = (refreshToken: string) =>
        token({
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: clientId,
          resource: `${base}/mcp`,
        });
      const next = await refresh(tokens.refresh_token);
      assert.equal(next.status, 200, next.raw);
      assert.notEqual(next.body.refresh_token, tokens.refresh_token);
      assert.equal((await balance(next.body.access_token, second.app)).status, 200);
      const reused = await refresh(tokens.refresh_token);
      assert.deepEqual([reused.status, reused.body.error], [400, 'invalid_grant']);
      assert.equal((await balance(next.body.access_token, second.app)).status, 401);
      assert.equal((await refresh(next.body.refresh_token)).body.error, 'invalid_grant');
      // The owner hears of it as of any revoked key: once, naming the connection, with no token in it.
      const events = await revokedEvents(agent.user.id);
      assert.equal(events.length, 1, JSON.stringify(events));
      const items = (await agent.user.api.get(keysUrl(agent.walletId))).body.data.items;
      const connection = items.find((k: { type: string }) => k.type === 'oauth');
      assert.equal(events[0]!.id, connection.id);
      assert.equal(connection.status, 'revoked');
      for (const secret of [tokens.refresh_token, tokens.access_token, next.body.refresh_token])
        assert.ok(!JSON.stringify(events).includes(secret), 'no token in the event');
    });

    test('revoking the connection (REST or RFC 7009) ends its tokens at once on the other instance', async () => {
      const viaRest = await connect();
      assert.equal((await balance(viaRest.tokens.access_token, second.app)).status, 200);
      const items = (await viaRest.agent.user.api.get(keysUrl(viaRest.agent.walletId))).body.data.items;
      const connection = items.find((k: { type: string }) => k.type === 'oauth');
      assert.equal(
        (await viaRest.agent.user.api.post(`${keysUrl(viaRest.agent.walletId)}/${connection.id}/revoke`, {}))
          .status,
        200,
      );
      assert.equal((await balance(viaRest.tokens.access_token, second.app)).status, 401);
      const rotate = await viaRest.agent.user.api.post(
        `${keysUrl(viaRest.agent.walletId)}/${connection.id}/rotate`,
        {},
      );
      assert.equal(rotate.status, 409);

      const viaRevoke = await connect();
      assert.equal((await balance(viaRevoke.tokens.access_token, second.app)).status, 200);
      const { body, headers } = form({
        token: viaRevoke.tokens.refresh_token,
        client_id: viaRevoke.clientId,
      });
      assert.equal((await call(h.app, 'POST', '/oauth/revoke', body, { headers })).status, 200);
      assert.equal((await balance(viaRevoke.tokens.access_token, second.app)).status, 401);
    });

    test('housekeeping: codes and tokens go a day after they expire; a used refresh token is kept until then', async () => {
      const { clientId, tokens } = await connect();
      const count = (table: 'oauth_codes' | 'oauth_tokens') => countRows(h, table);
      const refreshed = await token({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: clientId,
        resource: `${base}/mcp`,
      });
      assert.equal(refreshed.status, 200, refreshed.raw);
      const [codesBefore, tokensBefore] = [await count('oauth_codes'), await count('oauth_tokens')];
      h.clock.advanceMs(2 * 86_400_000); // codes (10 min) and access tokens (1 h) are a day past their end
      const purged = await purgeEndedOAuth(h.services.store.db, h.clock.nowMs());
      assert.ok(purged > 0);
      assert.equal(await count('oauth_codes'), 0);
      assert.ok((await count('oauth_tokens')) < tokensBefore && codesBefore > 0);
      // The spent refresh token is still known: its reuse still ends the connection.
      const reused = await token({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: clientId,
        resource: `${base}/mcp`,
      });
      assert.equal(reused.body.error, 'invalid_grant');
      const again = await token({
        grant_type: 'refresh_token',
        refresh_token: refreshed.body.refresh_token,
        client_id: clientId,
        resource: `${base}/mcp`,
      });
      assert.match(again.body.error_description, /revoked/);
      h.clock.advanceMs(31 * 86_400_000);
      await purgeEndedOAuth(h.services.store.db, h.clock.nowMs());
      assert.equal(await count('oauth_tokens'), 0);
    });

    test('refused: a reused code (and what it gave ends), another redirect URI, a wrong verifier, another audience', async () => {
      const { clientId, code, verifier, tokens } = await connect();
      const exchange = (overrides: Record<string, string>) =>
        token({
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT,
          client_id: clientId,
          code_verifier: verifier,
          resource: `${base}/mcp`,
          ...overrides,
        });
      const reused = await exchange({});
      assert.deepEqual([reused.status, reused.body.error], [400, 'invalid_grant']);
      assert.equal((await balance(tokens.access_token, second.app)).status, 401);

      const agent = await agentWithKey(h, { master: '10', fund: '0' });
      const fresh = await consent(agent, clientId);
      const attempt = (overrides: Record<string, string>) =>
        token({
          grant_type: 'authorization_code',
          code: fresh.code,
          redirect_uri: REDIRECT,
          client_id: clientId,
          code_verifier: fresh.verifier,
          resource: `${base}/mcp`,
          ...overrides,
        });
      assert.equal(
        (await attempt({ resource: 'https://elsewhere.example/mcp' })).body.error,
        'invalid_target',
      );
      assert.equal(
        (await attempt({ redirect_uri: 'http://127.0.0.1:8/callback' })).body.error,
        'invalid_grant',
      );
      const other = pkce();
      assert.equal((await attempt({ code_verifier: other.verifier })).body.error, 'invalid_grant');
      // Each refusal above used the code: it is gone.
      assert.equal((await attempt({})).body.error, 'invalid_grant');
    });

    test('consent refuses before asking: unregistered redirect, plain PKCE, another resource, a private metadata URL', async () => {
      const agent = await agentWithKey(h, { master: '10', fund: '0' });
      const clientId = await register();
      const good = {
        clientId,
        redirectUri: REDIRECT,
        responseType: 'code',
        codeChallenge: pkce().challenge,
        codeChallengeMethod: 'S256',
        resource: `${base}/mcp`,
      };
      const refused = async (change: Record<string, string>, pattern: RegExp) => {
        const reply: Reply = await agent.user.api.post('/api/v1/oauth/consent/preview', {
          ...good,
          ...change,
        });
        assert.deepEqual([reply.status, reply.body.error?.code], [400, 'OAUTH_INVALID_REQUEST'], reply.raw);
        assert.match(reply.body.error.message, pattern);
      };
      await refused({ redirectUri: 'http://127.0.0.1:7/other' }, /redirect_uri/);
      await refused({ codeChallengeMethod: 'plain' }, /S256/);
      await refused({ resource: 'https://elsewhere.example/mcp' }, /resource/);
      await refused({ clientId: 'https://127.0.0.1/client.json' }, /public address/);
      await refused({ clientId: 'https://10.0.0.7/client.json' }, /public address/);
      // A name is judged by the address the socket connects to: this machine's own name resolves to itself.
      await refused(
        { clientId: `https://${hostname()}/client.json` },
        /could not be read: no connection could be made/,
      );
      const registration = await call(h.app, 'POST', '/oauth/register', {
        redirect_uris: ['http://evil.example/cb'],
      });
      assert.deepEqual([registration.status, registration.body.error], [400, 'invalid_redirect_uri']);
    });

    test('registration is bounded: past the cap a 503; a client nobody connected goes a day later', async () => {
      const db = h.services.store.db;
      const clients = () => countRows(h, 'oauth_clients');
      const connected = await connect();
      const unused = await register('Never Used');
      const room = OAUTH_CLIENTS_MAX - (await clients());
      const fillers = Array.from({ length: room }, (_, i) => ({
        id: `oac_filler_${i}`,
        name: 'filler',
        redirect_uris_json: JSON.stringify([REDIRECT]),
        created_at_ms: BigInt(h.clock.nowMs()),
      }));
      for (let i = 0; i < fillers.length; i += 1_000) {
        await db
          .insertInto('oauth_clients')
          .values(fillers.slice(i, i + 1_000))
          .execute();
      }
      const body = {
        redirect_uris: [REDIRECT],
        client_name: 'One Too Many',
        token_endpoint_auth_method: 'none',
      };
      const full = await call(h.app, 'POST', '/oauth/register', body);
      assert.equal(full.status, 503, full.raw);
      assert.equal(full.headers['retry-after'], '3600');
      h.clock.advanceMs(86_400_000 + 1);
      for (let round = 0; round < 40 && (await purgeEndedOAuth(db, h.clock.nowMs())) > 0; round += 1);
      const left = await db.selectFrom('oauth_clients').select('id').execute();
      const ids = new Set(left.map((row) => row.id));
      assert.ok(ids.has(connected.clientId), 'a client with a connection stays');
      assert.equal(ids.has(unused), false, 'a client nobody connected went');
      assert.equal((await call(h.app, 'POST', '/oauth/register', body)).status, 201);
    });
  });
}

describe('OAuth: a client ID metadata document', () => {
  let h: Harness;
  let documentServer: Server;
  let documentUrl: string;
  before(async () => {
    // Loopback http is allowed only with WEBHOOK_ALLOW_PRIVATE (the rule of webhooks, contract section 7).
    h = await startHarness('sqlite', 'oauth-cimd', { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    documentServer = createServer((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({ client_id: documentUrl, client_name: 'Hosted Agent', redirect_uris: [REDIRECT] }),
      );
    });
    await new Promise<void>((resolve) => documentServer.listen(0, '127.0.0.1', resolve));
    const address = documentServer.address();
    assert(address !== null && typeof address === 'object');
    documentUrl = `http://127.0.0.1:${address.port}/client.json`;
  });
  after(async () => {
    documentServer?.close();
    await h?.close();
  });

  test('is fetched, named on the consent page, and its code exchanged by that client_id', async () => {
    const agent = await agentWithKey(h, { master: '10', fund: '5' });
    const base = (await call(h.app, 'GET', '/.well-known/oauth-protected-resource/mcp')).body
      .authorization_servers[0];
    const { verifier, challenge } = pkce();
    const request = {
      clientId: documentUrl,
      redirectUri: REDIRECT,
      responseType: 'code',
      codeChallenge: challenge,
      codeChallengeMethod: 'S256',
      resource: `${base}/mcp`,
    };
    const preview = await agent.user.api.post('/api/v1/oauth/consent/preview', request);
    assert.deepEqual(preview.body.data.client, {
      clientId: documentUrl,
      name: 'Hosted Agent',
      redirectHost: '127.0.0.1:7',
      metadataDocument: true,
    });
    const allowed = await agent.user.api.post('/api/v1/oauth/consent', {
      ...request,
      decision: 'allow',
      walletId: agent.walletId,
    });
    const code = new URL(allowed.body.data.redirectTo).searchParams.get('code')!;
    const { body, headers } = form({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: documentUrl,
      code_verifier: verifier,
      resource: `${base}/mcp`,
    });
    const tokens = await call(h.app, 'POST', '/oauth/token', body, { headers });
    assert.equal(tokens.status, 200, tokens.raw);
    const checked = await call(
      h.app,
      'POST',
      '/mcp/v1/tools/check_balance',
      {},
      { token: tokens.body.access_token },
    );
    assert.equal(toolOk(checked, 'check_balance').balance, '5.000000');
    const denied = await agent.user.api.post('/api/v1/oauth/consent', { ...request, decision: 'deny' });
    assert.equal(new URL(denied.body.data.redirectTo).searchParams.get('error'), 'access_denied');
  });
});

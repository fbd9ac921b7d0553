// An OAuth agent host's way in (contract section 12), for tests that need a connection a member allowed: the
// client registers, the member allows it on a wallet (a code), and the client redeems the code for tokens.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { call, type TestUser } from './http.ts';

const REDIRECT = 'http://127.0.0.1:7/callback';

export interface AllowedClient {
  clientId: string;
  /** The single-use authorization code the member's consent issued. */
  code: string;
  /** POST /oauth/token with the code: the reply (200 with tokens, or 400 with the OAuth error). */
  redeem(): Promise<{ status: number; body: { access_token?: string; error?: string } }>;
}

/** `member` allows a newly registered client `clientName` on `walletId` (read and write). */
export async function allowClient(
  app: FastifyInstance,
  member: TestUser,
  walletId: string,
  clientName = 'Test Host',
): Promise<AllowedClient> {
  const metadata = await call(app, 'GET', '/.well-known/oauth-protected-resource/mcp');
  const resource = `${metadata.body.authorization_servers[0]}/mcp`;
  const registered = await call(app, 'POST', '/oauth/register', {
    redirect_uris: [REDIRECT],
    client_name: clientName,
    token_endpoint_auth_method: 'none',
  });
  assert.equal(registered.status, 201, registered.raw);
  const clientId = registered.body.client_id as string;
  const verifier = randomBytes(32).toString('base64url');
  const allowed = await member.api.post('/api/v1/oauth/consent', {
    clientId,
    redirectUri: REDIRECT,
    responseType: 'code',
    codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
    codeChallengeMethod: 'S256',
    resource,
    scope: 'read write',
    state: 'st',
    decision: 'allow',
    walletId,
  });
  assert.equal(allowed.status, 200, allowed.raw);
  const code = new URL(allowed.body.data.redirectTo).searchParams.get('code') ?? '';
  const redeem = async () => {
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
      resource,
    });
    const reply = await call(app, 'POST', '/oauth/token', form.toString(), {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    return { status: reply.status, body: reply.body };
  };
  return { clientId, code, redeem };
}

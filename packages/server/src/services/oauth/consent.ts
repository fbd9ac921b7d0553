// The owner's side of an authorization (contract section 12): the request checked before the owner is asked,
// the preview the consent page shows, and the answer — a single-use code bound to the wallet and scopes the
// owner chose, or access_denied — sent back to the client's redirect URI.
import type { Kysely } from 'kysely';
import { type Scope, scopesToText } from '../../domain/keys/api-keys.ts';
import {
  CODE_TTL_MS,
  checkRedirectUri,
  generateOAuthSecret,
  isThisResource,
  isWellFormedChallenge,
  requestedScopes,
} from '../../domain/oauth/protocol.ts';
import type { Database } from '../../store/schema.ts';
import type { ServiceContext } from '../context.ts';
import { ownedWallet } from '../wallets/wallet-rows.ts';
import type { ClientInfo } from './clients.ts';
import { consentRefused } from './refusals.ts';

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  responseType: string;
  codeChallenge: string;
  codeChallengeMethod: string;
  resource: string;
  scope?: string;
  state?: string;
}

type ResolveClient = (clientId: string) => Promise<ClientInfo>;

export function createConsent(ctx: ServiceContext, resolveClient: ResolveClient) {
  const { store, writer, clock } = ctx;

  async function preview(request: AuthorizationRequest, mcpUrl: string) {
    const { client, scopes } = await checkRequest(request, mcpUrl, resolveClient);
    const redirect = new URL(request.redirectUri); // checked above; a custom scheme has no host
    return {
      client: {
        clientId: client.clientId,
        name: client.name,
        redirectHost: redirect.host || redirect.protocol,
        metadataDocument: client.metadataDocument,
      },
      scopes,
      resource: mcpUrl,
    };
  }

  async function consent(
    member: { tenantId: string; userId: string },
    request: AuthorizationRequest & { decision: 'allow' | 'deny'; walletId?: string; scopes?: Scope[] },
    urls: { mcpUrl: string; issuer: string },
  ): Promise<{ redirectTo: string }> {
    if (request.decision === 'deny') return denial(request, urls, resolveClient);
    const { client, scopes: requested } = await checkRequest(request, urls.mcpUrl, resolveClient);
    const redirect = answerTo(request, urls.issuer);
    if (request.walletId === undefined) throw consentRefused('choose an agent wallet to allow');
    const wallet = await ownedWallet(store.db, member.tenantId, request.walletId, 'agent');
    const scopes = request.scopes ?? requested;
    // The owner may narrow what the client asked for, never widen it.
    if (scopes.some((scope) => !requested.includes(scope)))
      throw consentRefused(`the client asked for ${requested.join(' ')} only`);
    const code = generateOAuthSecret('code');
    const nowMs = clock.nowMs();
    await writer.run((trx) =>
      insertCode(trx, {
        codeHash: code.hash,
        client,
        request,
        resource: urls.mcpUrl,
        member,
        walletId: wallet.id,
        scopes,
        nowMs,
      }),
    );
    redirect.searchParams.set('code', code.token);
    return { redirectTo: redirect.toString() };
  }

  const deny = (request: AuthorizationRequest, urls: { mcpUrl: string; issuer: string }) =>
    denial(request, urls, resolveClient);

  return { preview, consent, deny };
}

/**
 * Everything about an authorization request that can be wrong, checked before the owner is asked: the request's
 * own fields first, so a malformed one never costs a lookup or a metadata document's fetch.
 */
async function checkRequest(request: AuthorizationRequest, mcpUrl: string, resolveClient: ResolveClient) {
  const scopes = checkRequestFields(request, mcpUrl);
  const client = await resolveClient(request.clientId);
  if (!client.redirectUris.includes(request.redirectUri))
    throw consentRefused('redirect_uri is not one the client registered');
  const redirect = checkRedirectUri(request.redirectUri);
  if (!redirect.ok) throw consentRefused(`redirect_uri ${redirect.reason}`);
  return { client, scopes };
}

/**
 * The answer "no": error=access_denied back to the client. The request is checked as for allowing it, so a
 * request that is wrong (an unregistered redirect URI above all) sends the browser nowhere.
 */
async function denial(
  request: AuthorizationRequest,
  urls: { mcpUrl: string; issuer: string },
  resolveClient: ResolveClient,
): Promise<{ redirectTo: string }> {
  await checkRequest(request, urls.mcpUrl, resolveClient);
  const redirect = answerTo(request, urls.issuer);
  redirect.searchParams.set('error', 'access_denied');
  return { redirectTo: redirect.toString() };
}

/** The request's own fields (no lookup): a code flow with S256 PKCE for this resource; the scopes it asks for. */
function checkRequestFields(request: AuthorizationRequest, mcpUrl: string): Scope[] {
  if (request.responseType !== 'code') throw consentRefused('response_type must be "code"');
  if (request.codeChallengeMethod !== 'S256') throw consentRefused('code_challenge_method must be S256');
  if (!isWellFormedChallenge(request.codeChallenge))
    throw consentRefused('code_challenge must be the 43-character base64url S256 of a verifier');
  if (!isThisResource(request.resource, mcpUrl))
    throw consentRefused(`resource must be this service's MCP endpoint, ${mcpUrl}`);
  const scopes = requestedScopes(request.scope);
  if (!scopes.ok) throw consentRefused(scopes.reason);
  return scopes.scopes;
}

/** The single-use code of an allowed request: only its hash is stored, with all that its exchange must match. */
async function insertCode(
  trx: Kysely<Database>,
  input: {
    codeHash: string;
    client: ClientInfo;
    request: AuthorizationRequest;
    resource: string;
    member: { tenantId: string; userId: string };
    walletId: string;
    scopes: Scope[];
    nowMs: number;
  },
): Promise<void> {
  await trx
    .insertInto('oauth_codes')
    .values({
      code_hash: input.codeHash,
      client_id: input.client.clientId,
      client_name: input.client.name,
      redirect_uri: input.request.redirectUri,
      code_challenge: input.request.codeChallenge,
      resource: input.resource,
      user_id: input.member.tenantId,
      member_id: input.member.userId,
      wallet_id: input.walletId,
      scopes: scopesToText(input.scopes),
      expires_at_ms: BigInt(input.nowMs + CODE_TTL_MS),
      used_at_ms: null,
      key_id: null,
    })
    .execute();
}

/** Where the browser goes with the answer to a checked request: its redirect URI with state and iss. */
function answerTo(request: AuthorizationRequest, issuer: string): URL {
  const redirect = new URL(request.redirectUri);
  if (request.state !== undefined) redirect.searchParams.set('state', request.state);
  redirect.searchParams.set('iss', issuer); // RFC 9207: the client can tell which server answered
  return redirect;
}

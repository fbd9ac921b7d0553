// OAuth 2.1 for agent hosts (contract section 12): dynamic registration, client ID metadata documents, the
// owner's consent (which mints a single-use code), the code's exchange with PKCE and the resource, rotating
// refresh tokens (a reused one ends its connection) and revocation. A connection is a key row of the wallet
// (keys.ts insertConnection), so an access token is exactly as strong as an API key with those scopes.
import type { Kysely } from 'kysely';
import { hasVisibleCharacter, hiddenCharacterIn } from '../../domain/human-text.ts';
import { newId } from '../../domain/ids.ts';
import { type Scope, scopesFromText, scopesToText } from '../../domain/keys/api-keys.ts';
import {
  ACCESS_TOKEN_TTL_MS,
  CLIENT_NAME_LENGTH_MAX,
  CODE_TTL_MS,
  checkRedirectUri,
  generateOAuthSecret,
  hashOAuthSecret,
  isMetadataDocumentId,
  isThisResource,
  isWellFormedChallenge,
  isWellFormedOAuthSecret,
  pkceMatches,
  REDIRECT_URIS_MAX,
  REFRESH_TOKEN_TTL_MS,
  requestedScopes,
} from '../../domain/oauth/protocol.ts';
import { checkWebhookUrl } from '../../domain/webhook-url.ts';
import { AppError } from '../../errors.ts';
import type { Database } from '../../store/schema.ts';
import type { ServiceContext } from '../context.ts';
import { insertConnection, type KeyService } from '../keys/keys.ts';
import { hostAddresses, OutboundError, outboundRequest } from '../outbound-http.ts';
import { ownedWallet } from '../wallet-rows.ts';

/** An RFC 6749 section 5.2 error: the protocol endpoints answer `{error, error_description}`, not the envelope. */
export class OAuthError extends Error {
  readonly error: string;
  readonly description: string;
  readonly status: number;
  constructor(error: string, description: string, status = 400) {
    super(description);
    this.error = error;
    this.description = description;
    this.status = status;
  }
}

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

export interface ClientInfo {
  clientId: string;
  name: string;
  redirectUris: string[];
  metadataDocument: boolean;
}

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** A client metadata document is fetched like a webhook is delivered: bounded, public addresses only. */
const METADATA_FETCH = { totalTimeoutMs: 5_000, idleTimeoutMs: 3_000, bodyBytesMax: 16_384 };

export function createOAuthService(
  ctx: ServiceContext,
  keys: KeyService,
  options: { allowPrivate: boolean },
) {
  const { store, writer, clock } = ctx;
  const consentRefused = (message: string) => new AppError('OAUTH_INVALID_REQUEST', message);

  async function register(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const redirectUris = body.redirect_uris;
    if (!Array.isArray(redirectUris) || redirectUris.length === 0 || redirectUris.length > REDIRECT_URIS_MAX)
      throw new OAuthError('invalid_redirect_uri', `redirect_uris must list 1 to ${REDIRECT_URIS_MAX} URIs`);
    for (const uri of redirectUris) {
      const check =
        typeof uri === 'string' ? checkRedirectUri(uri) : { ok: false as const, reason: 'is not a string' };
      if (!check.ok) throw new OAuthError('invalid_redirect_uri', `redirect URI ${check.reason}`);
    }
    const method = body.token_endpoint_auth_method ?? 'none';
    if (method !== 'none')
      throw new OAuthError(
        'invalid_client_metadata',
        'only public clients (token_endpoint_auth_method "none")',
      );
    const name = clientNameOf(body.client_name, 'an unnamed client');
    if (name === null) throw new OAuthError('invalid_client_metadata', `client_name ${CLIENT_NAME_REFUSED}`);
    const id = newId('oac');
    const nowMs = clock.nowMs();
    await writer.run(async (trx) => {
      await assertRoomForClient(trx);
      await trx
        .insertInto('oauth_clients')
        .values({ id, name, redirect_uris_json: JSON.stringify(redirectUris), created_at_ms: BigInt(nowMs) })
        .execute();
    });
    return {
      client_id: id,
      client_id_issued_at: Math.floor(nowMs / 1000),
      client_name: name,
      redirect_uris: redirectUris,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    };
  }

  /** A registered client, or the document at a client_id URL (fetched now: it is the client's own word). */
  async function resolveClient(clientId: string): Promise<ClientInfo> {
    if (isMetadataDocumentId(clientId)) return fetchMetadataDocument(clientId);
    const row = await store.db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('id', '=', clientId)
      .executeTakeFirst();
    if (row === undefined) throw consentRefused('unknown client_id: the client is not registered');
    return {
      clientId,
      name: row.name,
      redirectUris: JSON.parse(row.redirect_uris_json),
      metadataDocument: false,
    };
  }

  async function fetchMetadataDocument(clientId: string): Promise<ClientInfo> {
    const checked = checkWebhookUrl(clientId, options.allowPrivate, hostAddresses());
    if (!checked.ok) throw consentRefused(`the client metadata URL ${checked.reason}`);
    let document: Record<string, unknown>;
    try {
      const answer = await outboundRequest({
        url: checked.url,
        method: 'GET',
        headers: { accept: 'application/json' },
        body: null,
        overflow: 'fail',
        allowPrivate: options.allowPrivate,
        ...METADATA_FETCH,
      });
      if (answer.status !== 200) throw new OutboundError(`it answered HTTP ${answer.status}`);
      document = JSON.parse(answer.body.toString('utf8'));
    } catch (error) {
      const why = error instanceof OutboundError ? error.message : 'it is not a JSON document';
      throw consentRefused(`the client metadata document could not be read: ${why}`);
    }
    if (document.client_id !== clientId)
      throw consentRefused('the client metadata document names another client_id');
    const uris = document.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0 || uris.length > REDIRECT_URIS_MAX)
      throw consentRefused('the client metadata document lists no redirect_uris');
    const name = clientNameOf(document.client_name, checked.url.host);
    if (name === null)
      throw consentRefused(`the client metadata document's client_name ${CLIENT_NAME_REFUSED}`);
    return {
      clientId,
      name,
      redirectUris: uris.filter((u) => typeof u === 'string'),
      metadataDocument: true,
    };
  }

  /**
   * Everything about an authorization request that can be wrong, checked before the owner is asked: the request's
   * own fields first, so a malformed one never costs a lookup or a metadata document's fetch.
   */
  async function checkRequest(request: AuthorizationRequest, mcpUrl: string) {
    if (request.responseType !== 'code') throw consentRefused('response_type must be "code"');
    if (request.codeChallengeMethod !== 'S256') throw consentRefused('code_challenge_method must be S256');
    if (!isWellFormedChallenge(request.codeChallenge))
      throw consentRefused('code_challenge must be the 43-character base64url S256 of a verifier');
    if (!isThisResource(request.resource, mcpUrl))
      throw consentRefused(`resource must be this service's MCP endpoint, ${mcpUrl}`);
    const scopes = requestedScopes(request.scope);
    if (!scopes.ok) throw consentRefused(scopes.reason);
    const client = await resolveClient(request.clientId);
    if (!client.redirectUris.includes(request.redirectUri))
      throw consentRefused('redirect_uri is not one the client registered');
    const redirect = checkRedirectUri(request.redirectUri);
    if (!redirect.ok) throw consentRefused(`redirect_uri ${redirect.reason}`);
    return { client, scopes: scopes.scopes };
  }

  async function preview(request: AuthorizationRequest, mcpUrl: string) {
    const { client, scopes } = await checkRequest(request, mcpUrl);
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
    if (request.decision === 'deny') return deny(request, urls);
    const { client, scopes: requested } = await checkRequest(request, urls.mcpUrl);
    const redirect = answerTo(request, urls.issuer);
    if (request.walletId === undefined) throw consentRefused('choose an agent wallet to allow');
    const wallet = await ownedWallet(store.db, member.tenantId, request.walletId, 'agent');
    const scopes = request.scopes ?? requested;
    // The owner may narrow what the client asked for, never widen it.
    if (scopes.some((scope) => !requested.includes(scope)))
      throw consentRefused(`the client asked for ${requested.join(' ')} only`);
    const code = generateOAuthSecret('code');
    const nowMs = clock.nowMs();
    await writer.run(async (trx) => {
      await trx
        .insertInto('oauth_codes')
        .values({
          code_hash: code.hash,
          client_id: client.clientId,
          client_name: client.name,
          redirect_uri: request.redirectUri,
          code_challenge: request.codeChallenge,
          resource: urls.mcpUrl,
          user_id: member.tenantId,
          member_id: member.userId,
          wallet_id: wallet.id,
          scopes: scopesToText(scopes),
          expires_at_ms: BigInt(nowMs + CODE_TTL_MS),
          used_at_ms: null,
          key_id: null,
        })
        .execute();
    });
    redirect.searchParams.set('code', code.token);
    return { redirectTo: redirect.toString() };
  }

  /**
   * The answer "no": error=access_denied back to the client. The request is checked as for allowing it, so a
   * request that is wrong (an unregistered redirect URI above all) sends the browser nowhere.
   */
  async function deny(
    request: AuthorizationRequest,
    urls: { mcpUrl: string; issuer: string },
  ): Promise<{ redirectTo: string }> {
    await checkRequest(request, urls.mcpUrl);
    const redirect = answerTo(request, urls.issuer);
    redirect.searchParams.set('error', 'access_denied');
    return { redirectTo: redirect.toString() };
  }

  async function token(params: Record<string, string>, mcpUrl: string): Promise<TokenAnswer> {
    const grant = params.grant_type;
    if (grant === 'authorization_code') return exchangeCode(params, mcpUrl);
    if (grant === 'refresh_token') return refresh(params, mcpUrl);
    throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
  }

  async function exchangeCode(params: Record<string, string>, mcpUrl: string): Promise<TokenAnswer> {
    const code = required(params, 'code');
    const verifier = required(params, 'code_verifier');
    const clientId = required(params, 'client_id');
    if (!isThisResource(params.resource, mcpUrl))
      throw new OAuthError('invalid_target', `resource must be this service's MCP endpoint, ${mcpUrl}`);
    if (!isWellFormedOAuthSecret(code, 'code')) throw invalidGrant('the code is unknown');
    const nowMs = clock.nowMs();
    const outcome: GrantOutcome = await writer.run(async (trx): Promise<GrantOutcome> => {
      const row = await trx
        .selectFrom('oauth_codes')
        .selectAll()
        .where('code_hash', '=', hashOAuthSecret(code))
        .executeTakeFirst();
      if (row === undefined) return { refused: 'the code is unknown' };
      // A second use of a code: whoever holds it is not the client that redeemed it; end what it gave.
      if (row.used_at_ms !== null) return { refused: 'the code was already used', revoke: row.key_id };
      await trx
        .updateTable('oauth_codes')
        .set({ used_at_ms: BigInt(nowMs) })
        .where('code_hash', '=', row.code_hash)
        .execute();
      const mismatch = codeMismatch(row, { clientId, redirectUri: params.redirect_uri, verifier, nowMs });
      if (mismatch !== null) return { refused: mismatch };
      const keyId = await insertConnection(trx, {
        walletId: row.wallet_id,
        userId: row.user_id,
        clientId: row.client_id,
        clientName: row.client_name,
        scopes: scopesFromText(row.scopes),
        createdBy: row.member_id,
        nowMs,
      });
      await trx
        .updateTable('oauth_codes')
        .set({ key_id: keyId })
        .where('code_hash', '=', row.code_hash)
        .execute();
      return { tokens: await issueTokens(trx, keyId, row.scopes, nowMs) };
    });
    return settle(outcome);
  }

  async function refresh(params: Record<string, string>, mcpUrl: string): Promise<TokenAnswer> {
    const presented = required(params, 'refresh_token');
    const clientId = required(params, 'client_id');
    if (params.resource !== undefined && !isThisResource(params.resource, mcpUrl))
      throw new OAuthError('invalid_target', `resource must be this service's MCP endpoint, ${mcpUrl}`);
    if (!isWellFormedOAuthSecret(presented, 'refresh')) throw invalidGrant('the refresh token is unknown');
    const nowMs = clock.nowMs();
    const outcome: GrantOutcome = await writer.run(async (trx): Promise<GrantOutcome> => {
      const row = await trx
        .selectFrom('oauth_tokens as t')
        .innerJoin('api_keys as k', 'k.id', 't.key_id')
        .select([
          't.token_hash',
          't.key_id',
          't.expires_at_ms',
          't.used_at_ms',
          'k.client_id',
          'k.scopes',
          'k.revoked_at_ms',
        ])
        .where('t.token_hash', '=', hashOAuthSecret(presented))
        .where('t.kind', '=', 'refresh')
        .executeTakeFirst();
      if (row === undefined) return { refused: 'the refresh token is unknown' };
      if (row.client_id !== clientId) return { refused: 'the refresh token belongs to another client' };
      // Rotation: a refresh token is used once; a second use means it leaked, so the whole family ends.
      if (row.used_at_ms !== null)
        return { refused: 'the refresh token was already used', revoke: row.key_id };
      if (Number(row.expires_at_ms) <= nowMs) return { refused: 'the refresh token expired' };
      if (row.revoked_at_ms !== null && Number(row.revoked_at_ms) <= nowMs)
        return { refused: 'the connection was revoked' };
      await trx
        .updateTable('oauth_tokens')
        .set({ used_at_ms: BigInt(nowMs) })
        .where('token_hash', '=', row.token_hash)
        .execute();
      return { tokens: await issueTokens(trx, row.key_id, row.scopes, nowMs) };
    });
    return settle(outcome);
  }

  /** A grant's outcome, after its transaction: the tokens, or the refusal (ending first what a reuse exposed). */
  async function settle(outcome: GrantOutcome): Promise<TokenAnswer> {
    if (outcome.tokens !== undefined) return outcome.tokens;
    if (outcome.revoke !== undefined && outcome.revoke !== null) await keys.revokeConnection(outcome.revoke);
    throw invalidGrant(outcome.refused ?? 'refused');
  }

  /** RFC 7009: any token of a connection ends the connection; unknown tokens are not an error. */
  async function revoke(params: Record<string, string>): Promise<void> {
    const presented = required(params, 'token');
    const wellFormed =
      isWellFormedOAuthSecret(presented, 'access') || isWellFormedOAuthSecret(presented, 'refresh');
    if (!wellFormed) return;
    const row = await store.db
      .selectFrom('oauth_tokens as t')
      .innerJoin('api_keys as k', 'k.id', 't.key_id')
      .select(['t.key_id', 'k.client_id'])
      .where('t.token_hash', '=', hashOAuthSecret(presented))
      .executeTakeFirst();
    if (row === undefined) return;
    if (params.client_id !== undefined && params.client_id !== row.client_id) return;
    await keys.revokeConnection(row.key_id);
  }

  return { register, preview, consent, deny, token, revoke, resolveClient };
}

export type OAuthService = ReturnType<typeof createOAuthService>;

/** Where the browser goes with the answer to a checked request: its redirect URI with state and iss. */
function answerTo(request: AuthorizationRequest, issuer: string): URL {
  const redirect = new URL(request.redirectUri);
  if (request.state !== undefined) redirect.searchParams.set('state', request.state);
  redirect.searchParams.set('iss', issuer); // RFC 9207: the client can tell which server answered
  return redirect;
}

/** Kept a day past their end, as sessions are: a code or token that has expired can be refused as unknown. */
const OAUTH_KEPT_AFTER_EXPIRY_MS = 86_400_000;
/**
 * Registered clients at most. Registration is open (RFC 7591: anyone may register), so the per-IP rate limit
 * alone would let many addresses fill the table; a client nobody connected goes a day after it registered
 * (purgeEndedOAuth), and past this bound a registration waits for that (503 with Retry-After).
 */
export const OAUTH_CLIENTS_MAX = 10_000;
const UNUSED_CLIENT_KEPT_MS = 86_400_000;
const PURGED_CLIENTS_PER_ROUND_MAX = 500;

async function assertRoomForClient(trx: Kysely<Database>): Promise<void> {
  const { n } = await trx
    .selectFrom('oauth_clients')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  if (Number(n) < OAUTH_CLIENTS_MAX) return;
  throw new AppError(
    'SERVICE_UNAVAILABLE',
    `${OAUTH_CLIENTS_MAX} clients are registered and none can go yet (an unused one goes a day after it registered): try again later`,
    { headers: { 'retry-after': '3600' } },
  );
}

/**
 * Housekeeping: codes and tokens a day past their expiry go. A used refresh token stays until it expires, so a
 * reuse within its 30 days is still recognised (and ends its connection); after that it is refused as unknown.
 */
export async function purgeEndedOAuth(db: Kysely<Database>, nowMs: number): Promise<number> {
  const cutoff = BigInt(nowMs - OAUTH_KEPT_AFTER_EXPIRY_MS);
  const codes = await db.deleteFrom('oauth_codes').where('expires_at_ms', '<=', cutoff).executeTakeFirst();
  const tokens = await db.deleteFrom('oauth_tokens').where('expires_at_ms', '<=', cutoff).executeTakeFirst();
  return Number(codes.numDeletedRows) + Number(tokens.numDeletedRows) + (await purgeUnusedClients(db, nowMs));
}

/** Registered clients a day old that no connection and no live code refers to (a bounded round). */
async function purgeUnusedClients(db: Kysely<Database>, nowMs: number): Promise<number> {
  const unused = await db
    .selectFrom('oauth_clients as c')
    .select('c.id')
    .where('c.created_at_ms', '<', BigInt(nowMs - UNUSED_CLIENT_KEPT_MS))
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('api_keys as k').select('k.id').whereRef('k.client_id', '=', 'c.id'))),
    )
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('oauth_codes as o').select('o.code_hash').whereRef('o.client_id', '=', 'c.id'))),
    )
    .limit(PURGED_CLIENTS_PER_ROUND_MAX)
    .execute();
  if (unused.length === 0) return 0;
  const ids = unused.map((row) => row.id);
  const deleted = await db.deleteFrom('oauth_clients').where('id', 'in', ids).executeTakeFirst();
  return Number(deleted.numDeletedRows);
}

/** A grant's decision inside its transaction: tokens, or why not (and the connection a reuse ends). */
interface GrantOutcome {
  tokens?: TokenAnswer;
  refused?: string;
  revoke?: string | null;
}

async function issueTokens(
  trx: Kysely<Database>,
  keyId: string,
  scopes: string,
  nowMs: number,
): Promise<TokenAnswer> {
  const access = generateOAuthSecret('access');
  const refresh = generateOAuthSecret('refresh');
  await trx
    .insertInto('oauth_tokens')
    .values([
      {
        token_hash: access.hash,
        kind: 'access',
        key_id: keyId,
        expires_at_ms: BigInt(nowMs + ACCESS_TOKEN_TTL_MS),
        used_at_ms: null,
        created_at_ms: BigInt(nowMs),
      },
      {
        token_hash: refresh.hash,
        kind: 'refresh',
        key_id: keyId,
        expires_at_ms: BigInt(nowMs + REFRESH_TOKEN_TTL_MS),
        used_at_ms: null,
        created_at_ms: BigInt(nowMs),
      },
    ])
    .execute();
  return {
    access_token: access.token,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_MS / 1000,
    refresh_token: refresh.token,
    scope: scopesFromText(scopes).join(' '),
  };
}

function codeMismatch(
  row: { client_id: string; redirect_uri: string; code_challenge: string; expires_at_ms: bigint },
  given: { clientId: string; redirectUri: string | undefined; verifier: string; nowMs: number },
): string | null {
  if (Number(row.expires_at_ms) <= given.nowMs) return 'the code expired';
  if (row.client_id !== given.clientId) return 'the code was issued to another client';
  if (row.redirect_uri !== given.redirectUri) return 'redirect_uri differs from the authorization request';
  if (!pkceMatches(given.verifier, row.code_challenge))
    return 'code_verifier does not match the code_challenge';
  return null;
}

function required(params: Record<string, string>, name: string): string {
  const value = params[name];
  if (value === undefined || value === '') throw new OAuthError('invalid_request', `${name} is required`);
  return value;
}

const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);

/** Why a client's name is refused: the rule of every name people read (domain/human-text.ts). */
const CLIENT_NAME_REFUSED =
  'must be one line of plain text: control, line-break, bidi and invisible format characters are refused';

/**
 * What a client calls itself, shown to the owner on the consent page and in the keys list: bounded, or null when
 * it holds a character no name may (a right-to-left override would let it pose as another client).
 */
function clientNameOf(value: unknown, fallback: string): string | null {
  if (typeof value !== 'string') return fallback;
  if (hiddenCharacterIn(value) !== null) return null;
  // Cut by code points: half of a surrogate pair is not text (PostgreSQL refuses it).
  const name = [...value.trim()].slice(0, CLIENT_NAME_LENGTH_MAX).join('');
  return hasVisibleCharacter(name) ? name : fallback;
}

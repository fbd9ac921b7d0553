// The token endpoint's grants and revocation (contract section 12): a code's exchange with PKCE and the resource
// makes the connection (a key row of the wallet, keys/rows.ts insertConnection), so an access token is exactly
// as strong as an API key with those scopes; refresh tokens rotate, and a reused code or refresh token ends its
// connection. Each grant decides inside its transaction (GrantOutcome) and ends what a reuse exposed after it.
import type { Kysely } from 'kysely';
import { scopesFromText } from '../../domain/keys/api-keys.ts';
import {
  ACCESS_TOKEN_TTL_MS,
  generateOAuthSecret,
  hashOAuthSecret,
  isThisResource,
  isWellFormedOAuthSecret,
  pkceMatches,
  REFRESH_TOKEN_TTL_MS,
} from '../../domain/oauth/protocol.ts';
import type { Database } from '../../store/schema.ts';
import type { ServiceContext } from '../context.ts';
import { insertConnection, type KeyService } from '../keys/keys.ts';
import { invalidGrant, OAuthError, required } from './refusals.ts';

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** A grant's decision inside its transaction: tokens, or why not (and the connection a reuse ends). */
interface GrantOutcome {
  tokens?: TokenAnswer;
  refused?: string;
  revoke?: string | null;
}

export function createGrants(ctx: ServiceContext, keys: KeyService) {
  const { store, writer, clock } = ctx;

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
    const given = { clientId, redirectUri: params.redirect_uri, verifier, nowMs };
    return settle(await writer.run((trx) => redeemCode(trx, code, given)));
  }

  async function refresh(params: Record<string, string>, mcpUrl: string): Promise<TokenAnswer> {
    const presented = required(params, 'refresh_token');
    const clientId = required(params, 'client_id');
    if (params.resource !== undefined && !isThisResource(params.resource, mcpUrl))
      throw new OAuthError('invalid_target', `resource must be this service's MCP endpoint, ${mcpUrl}`);
    if (!isWellFormedOAuthSecret(presented, 'refresh')) throw invalidGrant('the refresh token is unknown');
    const nowMs = clock.nowMs();
    return settle(await writer.run((trx) => useRefreshToken(trx, presented, clientId, nowMs)));
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

  return { token, revoke };
}

/** The code's exchange, in its transaction: marked used first (once only), then the connection and its tokens. */
async function redeemCode(
  trx: Kysely<Database>,
  code: string,
  given: { clientId: string; redirectUri: string | undefined; verifier: string; nowMs: number },
): Promise<GrantOutcome> {
  const { nowMs } = given;
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
  const mismatch = codeMismatch(row, given);
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
}

/** A refresh, in its transaction: the token used once (rotation), new tokens for its connection. */
async function useRefreshToken(
  trx: Kysely<Database>,
  presented: string,
  clientId: string,
  nowMs: number,
): Promise<GrantOutcome> {
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
  if (row.used_at_ms !== null) return { refused: 'the refresh token was already used', revoke: row.key_id };
  if (Number(row.expires_at_ms) <= nowMs) return { refused: 'the refresh token expired' };
  if (row.revoked_at_ms !== null && Number(row.revoked_at_ms) <= nowMs)
    return { refused: 'the connection was revoked' };
  await trx
    .updateTable('oauth_tokens')
    .set({ used_at_ms: BigInt(nowMs) })
    .where('token_hash', '=', row.token_hash)
    .execute();
  return { tokens: await issueTokens(trx, row.key_id, row.scopes, nowMs) };
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

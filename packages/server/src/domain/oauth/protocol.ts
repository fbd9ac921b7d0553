// OAuth 2.1 for agent hosts (contract section 12): the pure rules. The service is its own authorization server
// for one protected resource, `<base>/mcp`. Tokens are random (~256 bits) and stored as their SHA-256 like API
// keys; an access token lasts an hour, a refresh token 30 days and is single use (rotated); a code 10 minutes.
import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '../ids.ts';
import { parseScopes, type Scope } from '../keys/api-keys.ts';

export const ACCESS_TOKEN_PREFIX = 'svc_oat_';
export const REFRESH_TOKEN_PREFIX = 'svc_ort_';
const CODE_PREFIX = 'svc_oac_';
const TOKEN_RANDOM_LENGTH = 43;
const WELL_FORMED = /^svc_o(at|rt|ac)_[0-9A-Za-z]{43}$/;

export const ACCESS_TOKEN_TTL_MS = 3_600_000;
export const REFRESH_TOKEN_TTL_MS = 30 * 86_400_000;
export const CODE_TTL_MS = 600_000;
/** Registered clients' redirect URIs, and the length of any one. */
export const REDIRECT_URIS_MAX = 10;
export const REDIRECT_URI_LENGTH_MAX = 2_048;
export const CLIENT_NAME_LENGTH_MAX = 100;
/** RFC 7636 section 4.1: a verifier is 43 to 128 unreserved characters; its S256 challenge is 43 base64url. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export type OAuthTokenKind = 'access' | 'refresh' | 'code';

export function generateOAuthSecret(kind: OAuthTokenKind): { token: string; hash: string } {
  const prefix =
    kind === 'access' ? ACCESS_TOKEN_PREFIX : kind === 'refresh' ? REFRESH_TOKEN_PREFIX : CODE_PREFIX;
  const token = `${prefix}${randomBase62(TOKEN_RANDOM_LENGTH)}`;
  return { token, hash: hashOAuthSecret(token) };
}

export function hashOAuthSecret(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Shape check before any lookup, so garbage never reaches the database. */
export function isWellFormedOAuthSecret(token: string, kind: OAuthTokenKind): boolean {
  const match = WELL_FORMED.exec(token);
  return match !== null && match[1] === { access: 'at', refresh: 'rt', code: 'ac' }[kind];
}

/** RFC 7636 S256: BASE64URL(SHA256(verifier)) equals the challenge, compared in constant time. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier) || !CHALLENGE.test(challenge)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

export function isWellFormedChallenge(challenge: string): boolean {
  return CHALLENGE.test(challenge);
}

/**
 * A redirect URI a client may register or use (OAuth 2.1 section 2.3.1, RFC 8252): https anywhere, or http only
 * to a loopback host (native apps: Claude Desktop, MCP Inspector); a private-use scheme (`cursor://…`) for
 * native apps; never a fragment or credentials. Exact string match at use.
 */
export function checkRedirectUri(value: string): { ok: true } | { ok: false; reason: string } {
  if (value.length > REDIRECT_URI_LENGTH_MAX)
    return { ok: false, reason: `is longer than ${REDIRECT_URI_LENGTH_MAX} characters` };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, reason: 'is not an absolute URI' };
  }
  if (url.hash !== '' || value.includes('#')) return { ok: false, reason: 'must not have a fragment' };
  if (url.username !== '' || url.password !== '')
    return { ok: false, reason: 'must not contain credentials' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const loopback = host === 'localhost' || host === '127.0.0.1' || host === '::1';
  if (url.protocol === 'https:') return { ok: true };
  if (url.protocol === 'http:')
    return loopback ? { ok: true } : { ok: false, reason: 'must be https (or http to loopback)' };
  // A private-use scheme names a native app (RFC 8252 section 7.1): reverse-DNS-like, never a web scheme.
  if (/^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$|^(cursor|vscode|claude):$/.test(url.protocol)) return { ok: true };
  if (['javascript:', 'data:', 'file:', 'blob:'].includes(url.protocol))
    return { ok: false, reason: 'uses a scheme that is never a redirect target' };
  return { ok: false, reason: 'must be https, http to loopback, or a private-use app scheme' };
}

/** The scopes asked for (space-separated, RFC 6749 section 3.3); none asked means both. */
export function requestedScopes(
  scope: string | undefined,
): { ok: true; scopes: Scope[] } | { ok: false; reason: string } {
  if (scope === undefined || scope.trim() === '') return { ok: true, scopes: ['read', 'write'] };
  const names = scope.trim().split(/\s+/);
  const parsed = parseScopes(names);
  return parsed.ok ? { ok: true, scopes: parsed.scopes } : { ok: false, reason: `scope ${parsed.reason}` };
}

/** RFC 8707: the resource named must be this service's MCP endpoint (a trailing slash is the same resource). */
export function isThisResource(resource: string | undefined, mcpUrl: string): boolean {
  if (resource === undefined) return false;
  const trim = (url: string) => url.replace(/\/+$/, '');
  return trim(resource) === trim(mcpUrl);
}

/** A client_id that is an https URL is a client ID metadata document (draft-ietf-oauth-client-id-metadata-document). */
export function isMetadataDocumentId(clientId: string): boolean {
  return clientId.startsWith('https://') || clientId.startsWith('http://');
}

/** RFC 9728 protected resource metadata of /mcp. */
export function protectedResourceMetadata(baseUrl: string) {
  return {
    resource: `${baseUrl}/mcp`,
    authorization_servers: [baseUrl],
    scopes_supported: ['read', 'write'],
    bearer_methods_supported: ['header'],
    resource_name: 'Agent Wallet Service',
  };
}

/** RFC 8414 authorization server metadata. */
export function authorizationServerMetadata(baseUrl: string) {
  return {
    issuer: baseUrl,
    authorization_endpoint: `${baseUrl}/oauth/authorize`,
    token_endpoint: `${baseUrl}/oauth/token`,
    registration_endpoint: `${baseUrl}/oauth/register`,
    revocation_endpoint: `${baseUrl}/oauth/revoke`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    client_id_metadata_document_supported: true,
    scopes_supported: ['read', 'write'],
  };
}

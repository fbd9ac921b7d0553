// The consent page of OAuth for agent hosts (contract section 12), its pure parts: reading the authorization
// request from the page's query string, what the page shows at each moment, and what Allow needs. Unit-tested.
// The server decides whether a request is valid (client, redirect URI, PKCE, resource); the page only refuses
// what it cannot pass on faithfully (a parameter given twice) or cannot show anything for (no client_id).
import type { Scope } from '@agent-wallet/sdk';
import type { ApiError } from '../api/errors.ts';
import type { AuthorizeRequest, ConsentPreview } from '../api/oauth.ts';
import { can, ROLE_WORDS, type Role } from '../roles.ts';

/** The SPA route the server serves the dashboard at for `authorization_endpoint`. */
export const CONSENT_PATH = '/oauth/authorize';

/** The query parameters the page passes on, by their OAuth name, with the name the API takes. */
const PARAMS = [
  ['response_type', 'responseType'],
  ['client_id', 'clientId'],
  ['redirect_uri', 'redirectUri'],
  ['code_challenge', 'codeChallenge'],
  ['code_challenge_method', 'codeChallengeMethod'],
  ['resource', 'resource'],
  ['scope', 'scope'],
  ['state', 'state'],
] as const satisfies readonly (readonly [string, keyof AuthorizeRequest])[];

export type ParsedAuthorize = { ok: true; request: AuthorizeRequest } | { ok: false; problem: string };

/** Whether the page's path is the consent page's (a trailing slash allowed). */
export function isConsentPath(path: string): boolean {
  return path.replace(/\/+$/, '') === CONSENT_PATH;
}

/**
 * The authorization request in the query string as the preview and consent bodies take it. An empty parameter is
 * left out (RFC 6749 section 3.1: as if it were omitted); one given twice is refused here, because the body
 * carries one value and the server could no longer see the repetition. Unknown parameters are ignored.
 */
export function parseAuthorizeQuery(search: string): ParsedAuthorize {
  const query = new URLSearchParams(search);
  const request: AuthorizeRequest = {};
  for (const [name, field] of PARAMS) {
    const values = query.getAll(name);
    if (values.length > 1) {
      return {
        ok: false,
        problem: `The app’s request names “${name}” more than once. Start again from the app.`,
      };
    }
    const value = values[0];
    if (value !== undefined && value !== '') request[field] = value;
  }
  if (request.clientId === undefined) {
    return {
      ok: false,
      problem:
        'This page opens when an app asks to use one of your agent wallets, and this link does not say which app. Start connecting again from the app.',
    };
  }
  return { ok: true, request };
}

/** What the page shows. */
export type ConsentStage =
  /** The request cannot go on (malformed here, or 400 OAUTH_INVALID_REQUEST): the message, and no redirect ever. */
  | { stage: 'invalid'; message: string }
  | { stage: 'loading' }
  /** The preview failed for another reason (network, server): the error and a way to try again. */
  | { stage: 'failed'; error: ApiError }
  /** The member's role may not allow it: why, and Deny alone. The preview is null when it was refused too. */
  | { stage: 'refused'; preview: ConsentPreview | null; why: string }
  | { stage: 'ready'; preview: ConsentPreview };

/** Why a member below the role that may connect apps sees Deny alone. */
export function refusalWords(role: Role | null): string {
  const who =
    role === null ? 'Your role' : `As ${article(ROLE_WORDS[role].name)} ${ROLE_WORDS[role].name}, you`;
  const verb = role === null ? 'does' : 'do';
  return `${who} ${verb} not have the right to let an app use an agent wallet: an owner or an admin of your organization can. You can deny this request, or ask one of them to connect the app.`;
}

function article(word: string): string {
  return /^[AEIOU]/i.test(word) ? 'an' : 'a';
}

export function consentStage({
  parsed,
  role,
  preview,
  previewError,
}: {
  parsed: ParsedAuthorize;
  role: Role | null;
  preview: ConsentPreview | undefined;
  previewError: ApiError | undefined;
}): ConsentStage {
  if (!parsed.ok) return { stage: 'invalid', message: parsed.problem };
  if (previewError !== undefined) {
    if (previewError.code === 'OAUTH_INVALID_REQUEST' || previewError.status === 400)
      return { stage: 'invalid', message: previewError.message };
    if (previewError.code === 'FORBIDDEN_ROLE')
      return { stage: 'refused', preview: null, why: refusalWords(role) };
    return { stage: 'failed', error: previewError };
  }
  // The role comes from GET /organization: until it is known, Allow is neither offered nor refused.
  if (preview === undefined || role === null) return { stage: 'loading' };
  if (!can(role, 'connectApp')) return { stage: 'refused', preview, why: refusalWords(role) };
  return { stage: 'ready', preview };
}

export const SCOPES = ['read', 'write'] as const satisfies readonly Scope[];

/** Each scope in words: the checkbox's name, and what it lets the app do. */
export const SCOPE_WORDS: Record<Scope, { name: string; detail: string }> = {
  read: { name: 'Read', detail: 'check the wallet’s balance and history' },
  write: { name: 'Write', detail: 'send payments and ask for approval, within the wallet’s policies' },
};

/** The scopes the app asked for, in the page's order (unknown ones left out). */
export function requestedScopes(asked: readonly string[]): Scope[] {
  return SCOPES.filter((scope) => asked.includes(scope));
}

/** The chosen scopes with one ticked or unticked, in the page's order. */
export function toggleScope(chosen: readonly Scope[], scope: Scope, on: boolean): Scope[] {
  return SCOPES.filter((each) => (each === scope ? on : chosen.includes(each)));
}

/** Why Allow cannot be sent yet, or null. */
export function allowProblem(walletId: string, scopes: readonly Scope[]): string | null {
  if (walletId === '') return 'Choose an agent wallet.';
  if (scopes.length === 0) return 'Choose at least one scope.';
  return null;
}

/** The page's heading: who asks, for what. */
export function consentHeading(name: string): string {
  return `Allow ${name} to use an agent wallet?`;
}

/** How the app is identified, in words: the owner's second check after the redirect host. */
export function clientIdentityWords(client: ConsentPreview['client']): string {
  return client.metadataDocument
    ? `This app is identified by its published metadata at ${client.clientId}.`
    : 'This app registered itself with this service: its name is what it says about itself, so check the address above.';
}

/**
 * The address the server sent the browser to, when it is one a browser may be sent to. The server builds it from
 * the client's registered redirect URI; refusing script and data URLs here means a fault there can never run code
 * in this page. Apps on a computer use their own schemes (cursor://, vscode://) or a loopback http address.
 */
export function safeRedirect(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  return ['javascript:', 'data:', 'vbscript:', 'blob:', 'file:'].includes(parsed.protocol) ? null : url;
}

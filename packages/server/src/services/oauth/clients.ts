// OAuth clients: registered dynamically (RFC 7591, public clients only), or named by the URL of a client ID
// metadata document fetched when the owner is asked. What a client calls itself is shown to the owner, so it is
// held to the rule of every name people read.
import type { Kysely } from 'kysely';
import { hasVisibleCharacter, hiddenCharacterIn } from '../../domain/human-text.ts';
import { newId } from '../../domain/ids.ts';
import {
  CLIENT_NAME_LENGTH_MAX,
  checkRedirectUri,
  isMetadataDocumentId,
  REDIRECT_URIS_MAX,
} from '../../domain/oauth/protocol.ts';
import { checkWebhookUrl } from '../../domain/webhooks/webhook-url.ts';
import { AppError } from '../../errors.ts';
import type { Database } from '../../store/schema.ts';
import type { ServiceContext } from '../context.ts';
import { hostAddresses, OutboundError, outboundRequest } from '../webhooks/outbound-http.ts';
import { consentRefused, OAuthError } from './refusals.ts';

/**
 * Registered clients at most. Registration is open (RFC 7591: anyone may register), so the per-IP rate limit
 * alone would let many addresses fill the table; a client nobody connected goes a day after it registered
 * (purgeEndedOAuth), and past this bound a registration waits for that (503 with Retry-After).
 */
export const OAUTH_CLIENTS_MAX = 10_000;

/** A client metadata document is fetched like a webhook is delivered: bounded, public addresses only. */
const METADATA_FETCH = { totalTimeoutMs: 5_000, idleTimeoutMs: 3_000, bodyBytesMax: 16_384 };

export interface ClientInfo {
  clientId: string;
  name: string;
  redirectUris: string[];
  metadataDocument: boolean;
}

export function createClients(ctx: ServiceContext, options: { allowPrivate: boolean }) {
  const { store, writer, clock } = ctx;

  async function register(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { redirectUris, name } = checkRegistration(body);
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
    if (isMetadataDocumentId(clientId)) return fetchMetadataDocument(clientId, options.allowPrivate);
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

  return { register, resolveClient };
}

/** A registration's metadata, checked: 1 to REDIRECT_URIS_MAX good redirect URIs, a public client, a fit name. */
function checkRegistration(body: Record<string, unknown>): { redirectUris: unknown[]; name: string } {
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
  return { redirectUris, name };
}

async function fetchMetadataDocument(clientId: string, allowPrivate: boolean): Promise<ClientInfo> {
  const checked = checkWebhookUrl(clientId, allowPrivate, hostAddresses());
  if (!checked.ok) throw consentRefused(`the client metadata URL ${checked.reason}`);
  let document: Record<string, unknown>;
  try {
    const answer = await outboundRequest({
      url: checked.url,
      method: 'GET',
      headers: { accept: 'application/json' },
      body: null,
      overflow: 'fail',
      allowPrivate,
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

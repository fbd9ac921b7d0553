// What an agent may put in the request x402_fetch makes for it, the pure part. Header names and values are
// checked before use (a CR or LF would split the request, and Node refuses what it cannot send with an
// exception, not a reason). And the agent's own credential never leaves through it: an API key of this
// service anywhere in the headers, the URL or the body — in any case, percent-encoded or JSON-escaped — is
// refused, and so is the caller's own key even without its prefix.
import { API_KEY_PREFIX } from './keys/api-keys.ts';

/** RFC 9110 `token`: what a header name is made of. */
export const HEADER_NAME_PATTERN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/**
 * Visible ASCII, space and tab. RFC 9110 also tolerates obsolete bytes above 0x7F, but clients disagree on
 * their encoding (Latin-1 or UTF-8), and new fields are to use ASCII; CR, LF, NUL and other controls never.
 */
export const HEADER_VALUE_PATTERN = /^[\t\x20-\x7E]*$/;

/** An API key of this service, whatever its case: the prefix and the start of its base62 part. */
const API_KEY_SHAPE = /svc_(?:live|test)_[0-9a-z]/i;
/** A credential shorter than this is not looked for as such (a short string would match ordinary text). */
const OWN_SECRET_LENGTH_MIN = 16;
/** Percent-decoding is repeated this often at most (%2573 → %73 → s). */
const DECODE_ROUNDS_MAX = 3;

export interface OutgoingRequest {
  url: string;
  headers: Record<string, string>;
  body: string | null;
}

/**
 * Where the request carries an API key of this service (`headers: <name>`, `url`, `body`), or null.
 * `callerKey`: the credential the caller presented, looked for as such (without its prefix, in any case).
 */
export function keyLeakIn(request: OutgoingRequest, callerKey: string | null): string | null {
  const own = ownSecretOf(callerKey);
  const carries = (text: string) =>
    readingsOf(text).some((t) => API_KEY_SHAPE.test(t) || (own !== null && t.toLowerCase().includes(own)));
  for (const [name, value] of Object.entries(request.headers)) {
    // A name that is a key is not echoed back.
    if (carries(name)) return 'headers: a header name';
    if (carries(value)) return `headers: ${name.toLowerCase()}`;
  }
  if (carries(request.url)) return 'url';
  if (request.body !== null && carries(request.body)) return 'body';
  return null;
}

/** The random part of an API key (the prefix alone is no secret), else the whole credential; lower-case. */
function ownSecretOf(callerKey: string | null): string | null {
  if (callerKey === null) return null;
  const secret = callerKey.startsWith(API_KEY_PREFIX) ? callerKey.slice(API_KEY_PREFIX.length) : callerKey;
  return secret.length < OWN_SECRET_LENGTH_MIN ? null : secret.toLowerCase();
}

/** The text as given, and as a receiver may read it: percent-decoded (repeatedly) and JSON-unescaped. */
function readingsOf(text: string): string[] {
  const readings = [text, unescapeJson(text)];
  let decoded = text;
  for (let round = 0; round < DECODE_ROUNDS_MAX; round += 1) {
    const next = percentDecoded(decoded);
    if (next === decoded) break;
    readings.push(next, unescapeJson(next));
    decoded = next;
  }
  return readings;
}

/** `%XX` sequences decoded as UTF-8 where they are valid, byte by byte where they are not. */
function percentDecoded(text: string): string {
  if (!text.includes('%')) return text;
  return text.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run.replace(/%([0-9a-f]{2})/gi, (_, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      );
    }
  });
}

/** `\uXXXX` escapes (JSON, JavaScript) replaced by their characters. */
function unescapeJson(text: string): string {
  if (!text.includes('\\')) return text;
  return text.replace(/\\u([0-9a-f]{4})/gi, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

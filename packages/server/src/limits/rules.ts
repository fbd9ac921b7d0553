// The rate-limit table (seed section 8, contract section 5) and the pure mapping from a request to the
// key of the bucket it counts against. No I/O here: the stores count, this file only names.
import { createHash } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import { assert } from '../errors.ts';

export const BUCKET_NAMES = [
  'check_balance',
  'send_payment',
  'get_tx_history',
  'request_approval',
  'login',
  'signup',
  'wallet',
  'agent_wallets',
  'health',
  'tool_unauthenticated',
  'default',
  'login_account',
  'mfa_code',
  'check_payment',
  'x402_fetch',
  'x402_sign',
  'paid_fetch',
  'mpp_sign',
  'mcp_transport',
] as const;
export type BucketName = (typeof BUCKET_NAMES)[number];

/** Every limit counts over a sliding window of this length (seed: "count per minute")... */
export const RATE_LIMIT_WINDOW_MS = 60_000;
/** ...except failed logins per account (contract section 5): 10 per 15 minutes by default. */
export const LOGIN_ACCOUNT_WINDOW_MS = 15 * 60_000;

/** The buckets that count per account over LOGIN_ACCOUNT_WINDOW_MS: failed logins, and code guesses. */
const ACCOUNT_BUCKETS: readonly BucketName[] = ['login_account', 'mfa_code'];

/** The sliding window a bucket counts over. */
export function windowMsOf(bucket: BucketName): number {
  return ACCOUNT_BUCKETS.includes(bucket) ? LOGIN_ACCOUNT_WINDOW_MS : RATE_LIMIT_WINDOW_MS;
}

/** The seed's numbers (section 8) plus the contract's choices for the endpoints the seed leaves open. */
export const DEFAULT_LIMITS_PER_MINUTE: Readonly<Record<BucketName, number>> = Object.freeze({
  check_balance: 60,
  send_payment: 10,
  get_tx_history: 30,
  request_approval: 5,
  login: 5,
  signup: 3,
  wallet: 30,
  agent_wallets: 30,
  health: 600,
  tool_unauthenticated: 60,
  default: 60,
  login_account: 10,
  // TOTP and recovery codes judged per account (contract section 8): 10 per 15 minutes, whatever the number of
  // mfaTokens, sessions or IPs; counted before they are judged, a right one given back.
  mfa_code: 10,
  check_payment: 60,
  x402_fetch: 10,
  x402_sign: 10,
  // Contract section 13: paying any 402, 10 per key per minute each, their own buckets.
  paid_fetch: 10,
  mpp_sign: 10,
  // POST /mcp itself, per key (per IP for /mcp's other methods): a flood guard only. Protocol overhead (initialize,
  // notifications, ping, list calls, discovery) must never trip before a tool's own limit, whose refusal an agent
  // can read (contract sections 4 and 5); every tools/call still counts in its tool's bucket.
  mcp_transport: 1200,
});

// A sliding log keeps one timestamp per accepted request, so the limit also bounds memory per bucket.
export const LIMIT_PER_MINUTE_MIN = 1;
export const LIMIT_PER_MINUTE_MAX = 10_000_000;
/** Env var text longer than this is a mistake (the whole table fits in a few hundred bytes). */
const RATE_LIMITS_TEXT_MAX_CHARS = 10_000;
/** Offending values are echoed in error messages, cut to this length so a huge value cannot flood the log. */
const ECHO_MAX_CHARS = 80;
/** Subjects and routes longer than this are hashed, so a bucket key never exceeds a few hundred chars. */
export const KEY_PART_MAX_CHARS = 200;

export function isBucketName(name: string): name is BucketName {
  return (BUCKET_NAMES as readonly string[]).includes(name);
}

/**
 * Parses the `RATE_LIMITS` env var (a JSON object of per-minute limits by bucket) over the defaults.
 * Throws an Error naming the offending key or value; the server prints it and exits at start, because
 * a typo silently ignored would run production with limits nobody chose.
 */
export function parseRateLimits(json: string | undefined): Record<BucketName, number> {
  const limits: Record<BucketName, number> = { ...DEFAULT_LIMITS_PER_MINUTE };
  // An empty variable (`RATE_LIMITS=` in a .env file) means unset, like most shells and tools treat it.
  if (json === undefined || json.trim() === '') return limits;
  if (json.length > RATE_LIMITS_TEXT_MAX_CHARS) {
    throw new Error(`RATE_LIMITS is ${json.length} characters long; at most ${RATE_LIMITS_TEXT_MAX_CHARS}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`RATE_LIMITS is not valid JSON (${reason}): ${echo(json)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`RATE_LIMITS must be a JSON object such as {"check_balance":100}, got ${echo(json)}`);
  }
  for (const [name, value] of Object.entries(parsed)) {
    if (!isBucketName(name)) {
      throw new Error(
        `RATE_LIMITS has an unknown limit name ${echo(JSON.stringify(name))}; known names: ${BUCKET_NAMES.join(', ')}`,
      );
    }
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      throw new Error(
        `RATE_LIMITS.${name} must be an integer number of requests per minute, got ${echo(describe(value))}`,
      );
    }
    if (value < LIMIT_PER_MINUTE_MIN || value > LIMIT_PER_MINUTE_MAX) {
      throw new Error(
        `RATE_LIMITS.${name} must be between ${LIMIT_PER_MINUTE_MIN} and ${LIMIT_PER_MINUTE_MAX}, got ${value}`,
      );
    }
    limits[name] = value;
  }
  return limits;
}

/** JSON for the message, except numbers JSON cannot spell (1e400 parses as Infinity). */
function describe(value: unknown): string {
  return typeof value === 'number' ? String(value) : JSON.stringify(value);
}

function echo(text: string): string {
  return text.length <= ECHO_MAX_CHARS ? text : `${text.slice(0, ECHO_MAX_CHARS)}… (${text.length} chars)`;
}

/**
 * The bucket a REST request counts against. `routeUrl` is Fastify's route pattern
 * (`request.routeOptions.url`, e.g. `/api/v1/agent-wallets/:id/fund`), never the raw URL: the pattern
 * cannot be varied by the client, so an attacker cannot mint new buckets by changing ids or query strings.
 */
export function restBucketFor(method: string, routeUrl: string): BucketName {
  const verb = method.toUpperCase();
  // Fastify answers HEAD with the GET handler; a HEAD must not be a way around the GET bucket.
  const isRead = verb === 'GET' || verb === 'HEAD';
  const path = routeUrl.length > 1 && routeUrl.endsWith('/') ? routeUrl.slice(0, -1) : routeUrl;
  // Every way to prove a password, code or link: the login form, its second step, a step-up, a reset link.
  if (
    verb === 'POST' &&
    [
      '/api/v1/auth/login',
      '/api/v1/auth/login/mfa',
      '/api/v1/auth/step-up',
      '/api/v1/auth/passkeys/authentication-options',
      '/api/v1/auth/password/reset',
    ].includes(path)
  )
    return 'login';
  if (verb === 'POST' && path === '/api/v1/auth/signup') return 'signup';
  if (isRead && isAtOrUnder(path, '/api/v1/wallet')) return 'wallet';
  if (isAtOrUnder(path, '/api/v1/agent-wallets')) return 'agent_wallets';
  if (isRead && isAtOrUnder(path, '/api/v1/health')) return 'health';
  return 'default';
}

/** `/a/b` is at or under `/a/b`, and so is `/a/b/c`; `/a/bc` is not. */
function isAtOrUnder(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

export interface BucketKeyInput {
  bucket: BucketName;
  /** Required for the `default` bucket, which is kept per method + route. */
  method?: string;
  routeUrl?: string;
  /** `user:<id>`, `key:<apiKeyId>` or `ip:<addr>`; see the subject helpers below. */
  subject: string;
}

/**
 * The store key of one bucket: `<bucket>|<subject>`, or `default|<METHOD> <route>|<subject>` so every
 * other endpoint has its own bucket. Tool buckets use the tool name as `bucket` and `key:<id>` as subject.
 */
export function bucketKeyFor(input: BucketKeyInput): string {
  const subject = boundPart(input.subject);
  assert(subject.length > 0, 'a bucket key needs a subject');
  if (input.bucket !== 'default') return `${input.bucket}|${subject}`;
  assert(
    input.method !== undefined && input.routeUrl !== undefined,
    'the default bucket needs method and route',
  );
  const endpoint = boundPart(`${input.method.toUpperCase()} ${input.routeUrl}`);
  return `default|${endpoint}|${subject}`;
}

/** Keeps a key part short: parts beyond the limit become a collision-resistant hash of themselves. */
function boundPart(part: string): string {
  if (part.length <= KEY_PART_MAX_CHARS) return part;
  return `h:${createHash('sha256').update(part).digest('base64url')}`;
}

export function userSubject(userId: string): string {
  return `user:${userId}`;
}

export function apiKeySubject(apiKeyId: string): string {
  return `key:${apiKeyId}`;
}

/** An account by its normalised email, hashed: no email address is ever written into a limiter key. */
export function accountSubject(normalisedEmail: string): string {
  return `account:${createHash('sha256').update(normalisedEmail).digest('base64url')}`;
}

/**
 * The subject of an anonymous client. IPv4 counts per address. IPv6 counts per /64: a single host is
 * usually given a whole /64, so counting per address would hand an attacker 2^64 fresh login buckets.
 * IPv4-mapped IPv6 (`::ffff:1.2.3.4`, what a dual-stack socket reports) counts as the IPv4 address.
 */
export function ipSubject(address: string): string {
  const bare = address.split('%', 1)[0] ?? '';
  if (isIPv4(bare)) return `ip:${bare}`;
  if (!isIPv6(bare)) return `ip:${bare}`;
  const groups = expandIPv6(bare);
  assert(groups.length === 8, `an IPv6 address has 8 groups: ${bare}`);
  const isMapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (isMapped) {
    const [high = 0, low = 0] = groups.slice(6);
    return `ip:${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  }
  return `ip:${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The 8 16-bit groups of a valid IPv6 address (validated by the caller with net.isIPv6). */
function expandIPv6(address: string): number[] {
  const [headText = '', tailText] = address.split('::', 2);
  const toGroups = (text: string): number[] => {
    if (text === '') return [];
    return text.split(':').flatMap((part) => {
      if (!part.includes('.')) return [Number.parseInt(part, 16)];
      const [a = 0, b = 0, c = 0, d = 0] = part.split('.').map(Number);
      return [(a << 8) | b, (c << 8) | d];
    });
  };
  const head = toGroups(headText);
  if (tailText === undefined) return head;
  const tail = toGroups(tailText);
  const zeros = new Array<number>(8 - head.length - tail.length).fill(0);
  return [...head, ...zeros, ...tail];
}

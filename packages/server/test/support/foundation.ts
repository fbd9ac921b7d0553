// Assertions shared by the foundation route suites: wire formats (amounts, addresses, timestamps), the whole
// store's state before/after a refused request, the bad-amount battery and the bad-credential battery.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { decodeJwt, SignJWT } from 'jose';
import { verifyLedger } from '../../src/ledger/verify.ts';
import type { Database } from '../../src/store/schema.ts';
import type { Harness } from './harness.ts';
import { call, expectError, type Reply, type TestUser } from './http.ts';

/** An amount as responses render it: always 6 decimals. */
export const AMOUNT_6DP = /^(0|[1-9][0-9]*)\.[0-9]{6}$/;
/** ISO-8601 UTC as Date#toISOString renders it. */
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const SESSION_SECONDS = 7 * 24 * 60 * 60;

/** EIP-55, written out here so the tests do not trust the service's own implementation. */
export function eip55(address: string): string {
  const hex = address.slice(2).toLowerCase();
  const hash = Buffer.from(keccak_256(new TextEncoder().encode(hex))).toString('hex');
  let out = '0x';
  for (let i = 0; i < hex.length; i += 1) {
    out += Number.parseInt(hash[i]!, 16) >= 8 ? hex[i]!.toUpperCase() : hex[i]!;
  }
  return out;
}

export function assertChecksummed(address: unknown): void {
  assert.equal(typeof address, 'string');
  assert.match(address as string, /^0x[0-9a-fA-F]{40}$/);
  assert.equal(address, eip55(address as string), `${address} is not EIP-55 checksummed`);
}

export function assertIso(value: unknown): void {
  assert.equal(typeof value, 'string');
  assert.match(value as string, ISO_UTC);
  assert.equal(new Date(value as string).toISOString(), value);
}

export function assertAmount(value: unknown, expected?: string): void {
  assert.equal(typeof value, 'string', `amount ${JSON.stringify(value)} is not a string`);
  assert.match(value as string, AMOUNT_6DP);
  if (expected !== undefined) assert.equal(value, expected);
}

export function assertKeys(object: unknown, keys: readonly string[]): void {
  assert.equal(typeof object, 'object');
  assert.notEqual(object, null);
  assert.deepEqual(Object.keys(object as object).sort(), [...keys].sort());
}

export const USER_KEYS = ['id', 'email', 'createdAt'] as const;
export const MASTER_WALLET_KEYS = ['id', 'address', 'balance', 'currency', 'createdAt'] as const;
export const AGENT_WALLET_KEYS = [
  'id',
  'label',
  'address',
  'balance',
  'heldBalance',
  'currency',
  'frozen',
  'dailyCapRemaining',
  'totalCapRemaining',
  'pendingApprovals',
  'createdAt',
  'updatedAt',
] as const;
export const DEPOSIT_KEYS = ['id', 'amount', 'currency', 'rail', 'txHash', 'createdAt'] as const;
export const TRANSACTION_KEYS = [
  'id',
  'walletId',
  'type',
  'status',
  'amount',
  'currency',
  'toAddress',
  'memo',
  'reason',
  'rail',
  'txHash',
  'rejectionReason',
  'violations',
  'initiatedBy',
  'resource',
  'approvalsRequired',
  'approvals',
  'expiresAt',
  'createdAt',
  'updatedAt',
] as const;

/** An agent wallet as every route renders it. */
// biome-ignore lint/suspicious/noExplicitAny: wire JSON
export function assertAgentWalletShape(wallet: any): void {
  assertKeys(wallet, AGENT_WALLET_KEYS);
  assert.match(wallet.id, /^wal_/);
  assertChecksummed(wallet.address);
  assertAmount(wallet.balance);
  assertAmount(wallet.heldBalance);
  assert.equal(wallet.currency, 'USDC');
  assert.equal(typeof wallet.frozen, 'boolean');
  assert.equal(wallet.dailyCapRemaining, null);
  assert.equal(wallet.totalCapRemaining, null);
  assert.ok(Number.isInteger(wallet.pendingApprovals) && wallet.pendingApprovals >= 0);
  assertIso(wallet.createdAt);
  assertIso(wallet.updatedAt);
}

// biome-ignore lint/suspicious/noExplicitAny: wire JSON
export function assertTransactionShape(tx: any): void {
  assertKeys(tx, TRANSACTION_KEYS);
  assert.match(tx.id, /^tx_/);
  assertAmount(tx.amount);
  assert.equal(tx.currency, 'USDC');
  if (tx.toAddress !== null) assertChecksummed(tx.toAddress);
  assertIso(tx.createdAt);
  assertIso(tx.updatedAt);
}

/** A 400 VALIDATION_ERROR whose message names `field` (and says what is wrong, when `reason` is given). */
export function expectValidation(reply: Reply, field: string, reason?: RegExp): void {
  expectError(reply, 400, 'VALIDATION_ERROR');
  const message: string = reply.body.error.message;
  assert.ok(message.includes(field), `message ${JSON.stringify(message)} does not name ${field}`);
  if (reason !== undefined) assert.match(message, reason);
}

/** Every malformed amount of the contract, with what the message must say about it. */
export const BAD_AMOUNTS: ReadonlyArray<{ name: string; value: unknown; reason: RegExp }> = [
  { name: 'missing', value: undefined, reason: /required/ },
  { name: 'a JSON number', value: 10, reason: /string/ },
  { name: 'a JSON float', value: 10.5, reason: /string/ },
  { name: 'null', value: null, reason: /string|required/ },
  { name: 'a boolean', value: true, reason: /string/ },
  { name: 'an array', value: ['1'], reason: /string/ },
  { name: 'an empty string', value: '', reason: /empty/ },
  { name: 'negative', value: '-1', reason: /positive|sign/ },
  { name: 'zero', value: '0', reason: /greater than zero/ },
  { name: 'zero with decimals', value: '0.000000', reason: /greater than zero/ },
  { name: '7 decimals', value: '1.0000001', reason: /6 decimal/ },
  { name: 'exponent notation', value: '1e3', reason: /exponent/ },
  { name: 'upper-case exponent', value: '1E3', reason: /exponent/ },
  { name: '".5"', value: '.5', reason: /before the decimal point/ },
  { name: '"1."', value: '1.', reason: /after the decimal point/ },
  { name: '"007"', value: '007', reason: /leading zero/ },
  { name: 'a plus sign', value: '+1', reason: /sign/ },
  { name: 'spaces', value: ' 1', reason: /decimal string/ },
  { name: 'a comma', value: '1,5', reason: /decimal string/ },
  { name: 'hex', value: '0x10', reason: /decimal string/ },
  { name: 'Infinity', value: 'Infinity', reason: /decimal string/ },
  { name: 'over 1000000000', value: '1000000000.000001', reason: /at most 1000000000/ },
  { name: '1000000001', value: '1000000001', reason: /at most 1000000000/ },
  { name: 'a very long string', value: '1'.repeat(200), reason: /too long|at most/ },
];

/** Body with `amount` set to a bad value (left out when undefined). */
export function withAmount(value: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return value === undefined ? { ...extra } : { amount: value, ...extra };
}

// ---- the whole store, before and after -------------------------------------------------------------------

export interface StoreState {
  accounts: Record<string, string>;
  wallets: Record<string, string>;
  counts: Record<string, number>;
  revokedSessions: number;
}

const COUNTED_TABLES = [
  'users',
  'wallets',
  'ledger_transactions',
  'entries',
  'transactions',
  'transaction_events',
  'deposits',
  'idempotency_keys',
] as const;

/** The rows of a table in the harness's store. */
export async function countRows(h: Harness, table: keyof Database): Promise<number> {
  const row = await h.services.store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<bigint>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Every balance, every wallet's mutable fields and the row counts of every money table. */
export async function storeState(h: Harness): Promise<StoreState> {
  const db = h.services.store.db;
  const accounts = await db.selectFrom('accounts').select(['id', 'balance_micros']).execute();
  const wallets = await db
    .selectFrom('wallets')
    .select(['id', 'label', 'frozen_at_ms', 'updated_at_ms'])
    .execute();
  const counts: Record<string, number> = {};
  for (const table of COUNTED_TABLES) counts[table] = await countRows(h, table);
  const revoked = await db
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<bigint>().as('n'))
    .where('revoked_at_ms', 'is not', null)
    .executeTakeFirstOrThrow();
  return {
    accounts: Object.fromEntries(accounts.map((a) => [a.id, a.balance_micros.toString()])),
    wallets: Object.fromEntries(
      wallets.map((w) => [w.id, JSON.stringify([w.label, String(w.frozen_at_ms), String(w.updated_at_ms)])]),
    ),
    counts,
    revokedSessions: Number(revoked.n),
  };
}

export async function assertStoreUnchanged(
  h: Harness,
  before: StoreState,
  what = 'the request',
): Promise<void> {
  const after = await storeState(h);
  assert.deepEqual(after, before, `${what} changed the store`);
}

export async function assertLedgerOk(h: Harness): Promise<void> {
  const report = await verifyLedger(h.services.store);
  assert.deepEqual(report.problems, []);
  assert.equal(report.ok, true);
}

/** Master and agent balances as the API reports them. */
export async function balancesOf(
  user: TestUser,
  walletId: string,
): Promise<{ master: string; agent: string }> {
  const master = await user.api.get('/api/v1/wallet/balance');
  const agent = await user.api.get(`/api/v1/agent-wallets/${walletId}`);
  assert.equal(master.status, 200, master.raw);
  assert.equal(agent.status, 200, agent.raw);
  return { master: master.body.data.balance, agent: agent.body.data.balance };
}

// ---- credentials that must never pass -----------------------------------------------------------------------

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** The same token with one character of its signature changed. */
export function tamperSignature(token: string): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const i = Math.floor(signature.length / 2);
  const swapped = signature[i] === 'A' ? 'B' : 'A';
  return `${header}.${payload}.${signature.slice(0, i)}${swapped}${signature.slice(i + 1)}`;
}

/** The token's claims under `alg: none` with an empty signature. */
export function algNone(token: string): string {
  const claims = decodeJwt(token);
  return `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`;
}

/** The token's claims signed with `secret` (another server's secret, by default). */
export async function resign(
  token: string,
  secret: Uint8Array = new TextEncoder().encode('another-secret-that-is-long-enough-1234'),
  alg = 'HS256',
): Promise<string> {
  const claims = decodeJwt(token);
  return new SignJWT({ ...claims }).setProtectedHeader({ alg, typ: 'JWT' }).sign(secret);
}

/** The token with its payload rewritten (the original signature kept). */
export function rewritePayload(token: string, changes: Record<string, unknown>): string {
  const [header, , signature] = token.split('.') as [string, string, string];
  return `${header}.${b64url({ ...decodeJwt(token), ...changes })}.${signature}`;
}

export interface BadCredential {
  name: string;
  /** The Authorization header; undefined sends none. */
  authorization: string | undefined;
}

/**
 * Every Authorization a REST route must refuse with 401 UNAUTHORIZED, built around a real user's token:
 * missing, malformed, API-key shaped, tampered, unsigned, foreign-signed, logged out, unknown session.
 * `other` is a second real user, for the swapped-subject token.
 */
export async function badCredentials(h: Harness, user: TestUser, other: TestUser): Promise<BadCredential[]> {
  const login = await call(h.app, 'POST', '/api/v1/auth/login', {
    email: user.email,
    password: user.password,
  });
  assert.equal(login.status, 200, login.raw);
  const dead: string = login.body.data.token;
  const logout = await call(h.app, 'POST', '/api/v1/auth/logout', undefined, { token: dead });
  assert.equal(logout.status, 200, `logout failed: ${logout.raw}`);
  const token = user.token;
  const serverSecret = h.config.jwtSecret;
  const claims = decodeJwt(token);
  const unknownSession = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user.id)
    .setJti(`ses_${randomBytes(12).toString('hex')}`)
    .setIssuedAt(claims.iat!)
    .setExpirationTime(claims.exp!)
    .sign(serverSecret);
  const apiKey = `svc_live_${randomBytes(30).toString('base64url').replace(/[-_]/g, 'x')}`;
  return [
    { name: 'no Authorization header', authorization: undefined },
    { name: 'an empty Authorization header', authorization: '' },
    { name: '"Bearer" alone', authorization: 'Bearer' },
    { name: '"Bearer " and spaces', authorization: 'Bearer    ' },
    { name: 'Bearer garbage', authorization: 'Bearer garbage' },
    { name: 'Bearer a.b.c', authorization: 'Bearer a.b.c' },
    { name: 'the token without "Bearer"', authorization: token },
    {
      name: 'Basic credentials',
      authorization: `Basic ${Buffer.from(`${user.email}:${user.password}`).toString('base64')}`,
    },
    { name: 'an API key', authorization: `Bearer ${apiKey}` },
    { name: 'a changed signature', authorization: `Bearer ${tamperSignature(token)}` },
    { name: 'no signature', authorization: `Bearer ${token.split('.').slice(0, 2).join('.')}.` },
    { name: 'alg none', authorization: `Bearer ${algNone(token)}` },
    { name: 'another secret', authorization: `Bearer ${await resign(token)}` },
    {
      name: 'HS512 with the server secret',
      authorization: `Bearer ${await resign(token, serverSecret, 'HS512')}`,
    },
    { name: 'a swapped subject', authorization: `Bearer ${rewritePayload(token, { sub: other.id })}` },
    { name: 'a later exp', authorization: `Bearer ${rewritePayload(token, { exp: claims.exp! + 3600 })}` },
    {
      name: 'a valid signature naming another user',
      authorization: `Bearer ${await resign(rewritePayload(token, { sub: other.id }), serverSecret)}`,
    },
    { name: 'an unknown session', authorization: `Bearer ${unknownSession}` },
    { name: 'a logged-out token', authorization: `Bearer ${dead}` },
    { name: 'a 3000-character header', authorization: `Bearer ${token}${'x'.repeat(3000)}` },
  ];
}

/** A reply never shows a credential or a secret (of 16 characters or more). */
export function assertNoSecrets(h: Harness, reply: Reply, secrets: readonly string[] = []): void {
  const jwtSecret = new TextDecoder().decode(h.config.jwtSecret);
  for (const secret of [jwtSecret, ...secrets]) {
    if (secret.length < 16) continue; // short strings ("Bearer", "garbage") may appear in any message
    assert.ok(!reply.raw.includes(secret), `the response leaks a secret: ${reply.raw.slice(0, 200)}`);
  }
  assert.ok(!/\$argon2/.test(reply.raw), 'the response leaks a password hash');
  assert.ok(!/passwordHash|password_hash/.test(reply.raw), 'the response names a password hash');
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * Sends the request with every bad credential: each answers 401 UNAUTHORIZED, shows no credential, and the
 * store (balances, wallets, counts, sessions) is exactly as before.
 */
export async function expectRejectsBadCredentials(
  h: Harness,
  user: TestUser,
  other: TestUser,
  method: Method,
  url: string,
  body?: unknown,
): Promise<void> {
  const credentials = await badCredentials(h, user, other);
  const before = await storeState(h);
  for (const credential of credentials) {
    const headers: Record<string, string> =
      credential.authorization === undefined ? {} : { authorization: credential.authorization };
    const reply = await call(h.app, method, url, body, { headers });
    assert.equal(reply.status, 401, `${credential.name}: ${reply.status} ${reply.raw}`);
    expectError(reply, 401, 'UNAUTHORIZED');
    assertNoSecrets(h, reply, [user.token, user.password, credential.authorization ?? '']);
  }
  await assertStoreUnchanged(h, before, 'a refused credential');
}

/**
 * A fresh token of `user` is refused once the clock passes its 7-day expiry, and works again when the clock
 * is set back (so the refusal is the expiry, nothing else). The clock is restored before returning.
 */
export async function expectExpiredTokenRejected(
  h: Harness,
  user: TestUser,
  method: Method,
  url: string,
  body?: unknown,
): Promise<void> {
  const login = await call(h.app, 'POST', '/api/v1/auth/login', {
    email: user.email,
    password: user.password,
  });
  assert.equal(login.status, 200, login.raw);
  const token: string = login.body.data.token;
  const start = h.clock.nowMs();
  const before = await storeState(h);
  try {
    h.clock.advanceSeconds(SESSION_SECONDS + 1);
    const reply = await call(h.app, method, url, body, { token });
    expectError(reply, 401, 'UNAUTHORIZED');
    await assertStoreUnchanged(h, before, 'an expired token');
  } finally {
    h.clock.setMs(start);
  }
  const again = await call(h.app, 'GET', '/api/v1/auth/me', undefined, { token });
  assert.equal(again.status, 200, `the token should work before its expiry: ${again.raw}`);
}

// Helpers of the agent-access route suites (keys, policies, held payments, tools): an agent wallet with money
// and a key, tool calls, the wire shapes of keys/policies/tool results, and the store's agent-side state
// (keys and policies as well as money) before and after a refused request.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  assertChecksummed,
  assertIso,
  assertKeys,
  expectValidation,
  type StoreState,
  storeState,
} from './foundation.ts';
import type { Harness } from './harness.ts';
import { call, expectError, fundedUser, type Reply, type RequestOptions, type TestUser } from './http.ts';

/** Wire JSON, asserted on by the tests. */
// biome-ignore lint/suspicious/noExplicitAny: wire JSON
export type Wire = any;

/** Addresses that are no wallet of the service: payments to them settle on the sandbox rail. */
export const EXTERNAL = `0x${'ab'.repeat(20)}`;
export const EXTERNAL_2 = `0x${'cd'.repeat(20)}`;
export const EXTERNAL_3 = `0x${'ef'.repeat(20)}`;

export const API_KEY_FORMAT = /^svc_live_[0-9A-Za-z]{32,}$/;
/** `prefix` in key responses: the first 15 characters of the key (svc_live_ + 6). */
export const KEY_PREFIX_LENGTH = 15;

export const CREATED_KEY_KEYS = [
  'id',
  'key',
  'prefix',
  'label',
  'scopes',
  'walletId',
  'createdAt',
  'expiresAt',
] as const;
export const KEY_VIEW_KEYS = [
  'id',
  'type',
  'clientName',
  'prefix',
  'label',
  'scopes',
  'walletId',
  'status',
  'createdAt',
  'expiresAt',
  'revokedAt',
  'lastUsedAt',
  'rotatedToKeyId',
] as const;
export const POLICY_KEYS = ['id', 'walletId', 'type', 'params', 'active', 'createdAt', 'updatedAt'] as const;
export const TOOL_TX_KEYS = [
  'id',
  'type',
  'toAddress',
  'amount',
  'memo',
  'status',
  'txHash',
  'rail',
  'resource',
  'createdAt',
] as const;
export const BALANCE_KEYS = [
  'walletId',
  'address',
  'balance',
  'heldBalance',
  'currency',
  'frozen',
  'dailyCapRemaining',
  'totalCapRemaining',
] as const;
export const SEND_KEYS = ['txId', 'status', 'txHash', 'amount', 'toAddress', 'rejectionReason'] as const;
export const APPROVAL_KEYS = ['txId', 'status', 'message'] as const;

export const TOOL_NAMES = [
  'check_balance',
  'get_tx_history',
  'send_payment',
  'request_approval',
  'check_payment',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];
export const READ_TOOLS: readonly ToolName[] = ['check_balance', 'get_tx_history', 'check_payment'];
export const WRITE_TOOLS: readonly ToolName[] = ['send_payment', 'request_approval'];

export const keysUrl = (walletId: string) => `/api/v1/agent-wallets/${walletId}/keys`;
export const keyUrl = (walletId: string, keyId: string, action: 'revoke' | 'rotate') =>
  `/api/v1/agent-wallets/${walletId}/keys/${keyId}/${action}`;
export const policiesUrl = (walletId: string) => `/api/v1/agent-wallets/${walletId}/policies`;
export const policyUrl = (walletId: string, policyId: string) =>
  `/api/v1/agent-wallets/${walletId}/policies/${policyId}`;
export const pendingUrl = (walletId: string) => `/api/v1/agent-wallets/${walletId}/transactions/pending`;
export const decisionUrl = (walletId: string, txId: string, action: 'approve' | 'reject') =>
  `/api/v1/agent-wallets/${walletId}/transactions/${txId}/${action}`;
export const toolUrl = (name: string) => `/mcp/v1/tools/${name}`;

export interface Agent {
  user: TestUser;
  walletId: string;
  /** The agent wallet's address as the API renders it (checksummed). */
  address: string;
  key: string;
  keyId: string;
}

/**
 * A new user with `master` USDC in the master wallet, an agent wallet funded with `fund`, and one API key
 * (read and write unless `scopes` says otherwise).
 */
export async function agentWithKey(
  h: Harness,
  options: { master?: string; fund?: string; scopes?: unknown } = {},
): Promise<Agent> {
  const { user, walletId, wallet } = await fundedUser(h.app, options.master ?? '1000');
  if (options.fund !== '0') {
    const funded = await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, {
      amount: options.fund ?? '100',
    });
    assert.equal(funded.status, 200, `fund failed: ${funded.raw}`);
  }
  const created = await createKey(user, walletId, {
    label: 'agent key',
    ...(options.scopes === undefined ? {} : { scopes: options.scopes }),
  });
  return { user, walletId, address: wallet.address, key: created.key, keyId: created.id };
}

/** Creates an agent wallet for `user` (funded from the master wallet when `fund` is given). */
export async function addAgentWallet(
  user: TestUser,
  fund?: string,
): Promise<{ id: string; address: string }> {
  const wallet = await user.api.post('/api/v1/agent-wallets', { label: 'another agent' });
  assert.equal(wallet.status, 201, wallet.raw);
  if (fund !== undefined) {
    const funded = await user.api.post(`/api/v1/agent-wallets/${wallet.body.data.id}/fund`, { amount: fund });
    assert.equal(funded.status, 200, funded.raw);
  }
  return { id: wallet.body.data.id, address: wallet.body.data.address };
}

/** POST .../keys, asserting 201; returns the created key's data. */
export async function createKey(
  user: TestUser,
  walletId: string,
  body: unknown = { label: 'k' },
): Promise<Wire> {
  const reply = await user.api.post(keysUrl(walletId), body);
  assert.equal(reply.status, 201, `key creation failed: ${reply.raw}`);
  return reply.body.data;
}

export async function listKeys(user: TestUser, walletId: string): Promise<Wire[]> {
  const reply = await user.api.get(`${keysUrl(walletId)}?limit=100`);
  assert.equal(reply.status, 200, reply.raw);
  return reply.body.data.items;
}

export async function keyInList(user: TestUser, walletId: string, keyId: string): Promise<Wire> {
  const item = (await listKeys(user, walletId)).find((k) => k.id === keyId);
  assert.ok(item !== undefined, `key ${keyId} is not listed`);
  return item;
}

/** POST .../policies, asserting 201; returns the policy. */
export async function createPolicy(
  user: TestUser,
  walletId: string,
  type: string,
  params: unknown,
): Promise<Wire> {
  const reply = await user.api.post(policiesUrl(walletId), { type, params });
  assert.equal(reply.status, 201, `policy creation failed: ${reply.raw}`);
  return reply.body.data;
}

/** A tool call with the body `{params}` (or no params at all when `params` is undefined: `{}`). */
export function tool(
  h: Harness,
  key: string | undefined,
  name: string,
  params?: unknown,
  options: RequestOptions = {},
): Promise<Reply> {
  const body = params === undefined ? {} : { params };
  return call(h.app, 'POST', toolUrl(name), body, {
    ...options,
    ...(key === undefined ? {} : { token: key }),
  });
}

/** A tool call answered 200 with `{success: true, tool, data}`; returns data. */
export function toolOk(reply: Reply, name: string): Wire {
  assert.equal(reply.status, 200, `${name}: ${reply.raw}`);
  assertKeys(reply.body, ['success', 'tool', 'data']);
  assert.equal(reply.body.success, true);
  assert.equal(reply.body.tool, name);
  return reply.body.data;
}

/** A tool failure: the error envelope and, for a tool that exists, the top-level `tool`. */
export function expectToolError(reply: Reply, name: string | null, status: number, code: string): void {
  expectError(reply, status, code);
  if (name !== null) assert.equal(reply.body.tool, name, `the failure does not name the tool: ${reply.raw}`);
}

/** The agent wallet as GET /agent-wallets/:id shows it. */
export async function walletOf(user: TestUser, walletId: string): Promise<Wire> {
  const reply = await user.api.get(`/api/v1/agent-wallets/${walletId}`);
  assert.equal(reply.status, 200, reply.raw);
  return reply.body.data;
}

export async function masterBalanceOf(user: TestUser): Promise<string> {
  const reply = await user.api.get('/api/v1/wallet/balance');
  assert.equal(reply.status, 200, reply.raw);
  return reply.body.data.balance;
}

/** A payment held for approval through request_approval; returns its transaction id. */
export async function holdPayment(
  h: Harness,
  agent: Agent,
  amount: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const reply = await tool(h, agent.key, 'request_approval', { toAddress: EXTERNAL, amount, ...extra });
  const data = toolOk(reply, 'request_approval');
  assert.equal(data.status, 'pending');
  return data.txId;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The reply shows none of the keys, nor any key's SHA-256 (hex or base64), nor a field named like a hash. */
export function assertNoKeyMaterial(reply: Reply, keys: readonly string[]): void {
  for (const key of keys) {
    assert.ok(!reply.raw.includes(key), `the response shows an API key: ${reply.raw.slice(0, 300)}`);
    const digest = createHash('sha256').update(key, 'utf8').digest();
    for (const form of [digest.toString('hex'), digest.toString('base64'), digest.toString('base64url')]) {
      assert.ok(!reply.raw.includes(form), `the response shows a key hash: ${reply.raw.slice(0, 300)}`);
    }
  }
  assert.ok(
    !/"(key_?hash|keyHash|hash|secret)"/i.test(reply.raw),
    `a hash-like field: ${reply.raw.slice(0, 300)}`,
  );
}

/** A key as list/revoke/rotate render it. */
export function assertKeyView(item: Wire): void {
  assertKeys(item, KEY_VIEW_KEYS);
  assert.match(item.id, /^key_/);
  assert.equal(typeof item.prefix, 'string');
  assert.equal(item.prefix.length, KEY_PREFIX_LENGTH);
  assert.ok(item.prefix.startsWith('svc_live_'));
  assert.ok(['active', 'rotating', 'revoked', 'expired'].includes(item.status), item.status);
  assertIso(item.createdAt);
  for (const field of ['expiresAt', 'revokedAt', 'lastUsedAt'] as const) {
    if (item[field] !== null) assertIso(item[field]);
  }
}

/** A freshly created (or rotated-to) key. */
export function assertCreatedKey(
  data: Wire,
  expected: { label: string; scopes: string[]; walletId: string },
): void {
  assert.match(data.id, /^key_/);
  assert.match(data.key, API_KEY_FORMAT);
  assert.equal(data.prefix, data.key.slice(0, KEY_PREFIX_LENGTH));
  assert.equal(data.label, expected.label);
  assert.deepEqual(data.scopes, expected.scopes);
  assert.equal(data.walletId, expected.walletId);
  assertIso(data.createdAt);
}

export function assertPolicyView(policy: Wire): void {
  assertKeys(policy, POLICY_KEYS);
  assert.match(policy.id, /^pol_/);
  assert.equal(typeof policy.active, 'boolean');
  assertIso(policy.createdAt);
  assertIso(policy.updatedAt);
  if (Array.isArray(policy.params.addresses)) for (const a of policy.params.addresses) assertChecksummed(a);
}

/** A checksummed address with the case of one letter flipped: a mixed-case address with a wrong checksum. */
export function breakChecksum(checksummed: string): string {
  const chars = checksummed.split('');
  for (let i = 2; i < chars.length; i += 1) {
    const c = chars[i]!;
    if (/[a-f]/.test(c)) {
      chars[i] = c.toUpperCase();
      return chars.join('');
    }
    if (/[A-F]/.test(c)) {
      chars[i] = c.toLowerCase();
      return chars.join('');
    }
  }
  throw new Error(`no letter to flip in ${checksummed}`);
}

// ---- agent-side state, before and after -------------------------------------------------------------------

export interface AgentState {
  store: StoreState;
  keys: string[];
  policies: string[];
}

/** storeState plus every key's and policy's mutable fields. */
export async function agentState(h: Harness): Promise<AgentState> {
  const db = h.services.store.db;
  const keys = await db
    .selectFrom('api_keys')
    .select(['id', 'label', 'scopes', 'revoked_at_ms', 'expires_at_ms', 'rotated_to_key_id'])
    .orderBy('id')
    .execute();
  const policies = await db
    .selectFrom('policies')
    .select(['id', 'type', 'params_json', 'active', 'updated_at_ms'])
    .orderBy('id')
    .execute();
  return {
    store: await storeState(h),
    keys: keys.map((k) =>
      JSON.stringify([
        k.id,
        k.label,
        k.scopes,
        String(k.revoked_at_ms),
        String(k.expires_at_ms),
        k.rotated_to_key_id,
      ]),
    ),
    policies: policies.map((p) =>
      JSON.stringify([p.id, p.type, p.params_json, String(p.active), String(p.updated_at_ms)]),
    ),
  };
}

export async function assertAgentStateUnchanged(
  h: Harness,
  before: AgentState,
  what = 'the request',
): Promise<void> {
  assert.deepEqual(await agentState(h), before, `${what} changed the store`);
}

/** A well-formed API key that the service never issued. */
export function unknownKey(): string {
  return `svc_live_${'Z'.repeat(43)}`;
}

/** Text with a NUL character: valid JSON, but PostgreSQL text columns cannot hold it. */
export const NUL_TEXT = 'before\u0000after';

/**
 * A text field holding NUL must get the same answer on every store: a 400 naming the field, or acceptance
 * (then the caller checks the value round-trips). Never a 500. Returns whether it was accepted.
 */
export function expectNulHandled(reply: Reply, field: string): boolean {
  if (reply.status === 400) {
    expectValidation(reply, field);
    return false;
  }
  assert.ok(reply.status < 300, `a NUL character in ${field} answered ${reply.status} ${reply.raw}`);
  return true;
}

/** `a - b` for 6-place amount strings, in micro-units (never floats). */
export function minus(a: string, b: string): string {
  const micros = (s: string) => {
    const [whole, frac = ''] = s.split('.');
    return BigInt(whole!) * 1_000_000n + BigInt(frac.padEnd(6, '0'));
  };
  const left = micros(a) - micros(b);
  return `${left / 1_000_000n}.${(left % 1_000_000n).toString().padStart(6, '0')}`;
}

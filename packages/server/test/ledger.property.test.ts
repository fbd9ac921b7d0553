// Property-based (fast-check) test against the real services, both stores: random sequences of fund, withdraw,
// payments (external and internal), approvals, rejections, expiries, freezes and clock moves on an agent wallet
// with a daily cap and an approval threshold. A small reference model predicts every balance; after every step
// the service must agree with it (nothing acknowledged is lost or doubled), the ledger must verify (entries sum
// to zero, no negative balance, held = sum of pending), and each decision must be one the model allows (the
// daily cap is never passed, a payment above the threshold waits, a refusal has its reason).
// A failure prints fast-check's seed and path: FC_SEED=<seed> FC_PATH=<path> reproduces it. FC_RUNS sizes it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { verifyLedger } from '../src/ledger/verify.ts';
import { addPolicy } from './support/agent.helpers.ts';
import { type Agent, agentWithKey, EXTERNAL, tool } from './support/agent.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { as, call } from './support/http.ts';

const RUNS = Number(process.env.FC_RUNS ?? 8);
/** A failure is shrunk to a smaller counterexample for at most this long (each try replays real requests). */
const SHRINK_BUDGET_MS = 60_000;
const DAY_MS = 24 * 3_600_000;
const APPROVAL_TTL_MS = 72 * 3_600_000;
const MICROS = 1_000_000;

type WalletName = 'A' | 'B';
type Op =
  | { kind: 'fund' | 'withdraw'; wallet: WalletName; micros: number }
  | { kind: 'pay'; to: 'external' | 'B'; micros: number }
  | { kind: 'decide'; approve: boolean; pick: number }
  | { kind: 'wait'; seconds: number }
  | { kind: 'freeze'; frozen: boolean }
  | { kind: 'revoke' };

const micros = fc.integer({ min: 1, max: 30 * MICROS });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('fund' as const), wallet: fc.constantFrom<WalletName>('A', 'B'), micros }),
  fc.record({
    kind: fc.constant('withdraw' as const),
    wallet: fc.constantFrom<WalletName>('A', 'B'),
    micros,
  }),
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('pay' as const), to: fc.constantFrom('external', 'B'), micros }),
  },
  fc.record({ kind: fc.constant('decide' as const), approve: fc.boolean(), pick: fc.nat(20) }),
  fc.record({ kind: fc.constant('wait' as const), seconds: fc.integer({ min: 1, max: 200_000 }) }),
  fc.record({ kind: fc.constant('freeze' as const), frozen: fc.boolean() }),
  fc.record({ kind: fc.constant('revoke' as const) }),
);

interface Held {
  txId: string;
  micros: number;
  atMs: number;
  to: 'external' | 'B';
}

interface Model {
  master: number;
  available: Record<WalletName, number>;
  held: number;
  pending: Held[];
  /** A's payments that count against its daily cap: completed or waiting, by when they were asked for. */
  counted: Array<{ txId: string; micros: number; atMs: number }>;
  frozen: boolean;
}

const usdc = (m: number) => `${Math.floor(m / MICROS)}.${String(m % MICROS).padStart(6, '0')}`;

interface World {
  h: Harness;
  a: Agent;
  bKey: string;
  bId: string;
  bAddress: string;
  capMicros: number;
  thresholdMicros: number;
  model: Model;
}

/** The daily-cap room as the model sees it; undefined when an entry sits exactly on the window's edge. */
function spentLast24h(world: World): number | undefined {
  const since = world.h.clock.nowMs() - DAY_MS;
  if (world.model.counted.some((c) => c.atMs === since)) return undefined;
  return world.model.counted.filter((c) => c.atMs > since).reduce((sum, c) => sum + c.micros, 0);
}

async function applyMove(world: World, op: Extract<Op, { kind: 'fund' | 'withdraw' }>): Promise<void> {
  const { model, a } = world;
  const walletId = op.wallet === 'A' ? a.walletId : world.bId;
  const reply = await a.user.api.post(`/api/v1/agent-wallets/${walletId}/${op.kind}`, {
    amount: usdc(op.micros),
  });
  const source = op.kind === 'fund' ? model.master : model.available[op.wallet];
  if (reply.status !== 200) {
    assert.equal(reply.body.error.code, 'INSUFFICIENT_BALANCE', reply.raw);
    assert.ok(source < op.micros, `refused although ${source} >= ${op.micros}`);
    return;
  }
  assert.ok(source >= op.micros, `${op.kind} of ${op.micros} passed with ${source}`);
  const sign = op.kind === 'fund' ? 1 : -1;
  model.master -= sign * op.micros;
  model.available[op.wallet] += sign * op.micros;
}

async function applyPay(world: World, op: Extract<Op, { kind: 'pay' }>): Promise<void> {
  const { model } = world;
  const toAddress = op.to === 'B' ? world.bAddress : EXTERNAL;
  const reply = await tool(world.h, world.a.key, 'send_payment', { toAddress, amount: usdc(op.micros) });
  const spent = spentLast24h(world);
  const capOk = spent === undefined ? undefined : spent + op.micros <= world.capMicros;
  const code = reply.body?.error?.code;
  if (reply.status === 403) return assert.ok(model.frozen && code === 'WALLET_FROZEN', reply.raw);
  if (code === 'INSUFFICIENT_BALANCE') return assert.ok(model.available.A < op.micros, reply.raw);
  if (code === 'POLICY_DENIED') return assert.notEqual(capOk, true, `denied within the cap: ${reply.raw}`);
  assert.equal(reply.status, 200, reply.raw);
  const { status, txId } = reply.body.data;
  assert.ok(!model.frozen, 'a frozen wallet paid');
  assert.ok(model.available.A >= op.micros, 'paid more than was available');
  assert.notEqual(capOk, false, `the daily cap was passed: ${spent} + ${op.micros} > ${world.capMicros}`);
  model.available.A -= op.micros;
  model.counted.push({ txId, micros: op.micros, atMs: world.h.clock.nowMs() });
  if (status === 'pending') {
    assert.ok(op.micros > world.thresholdMicros, 'held although not above the threshold');
    model.held += op.micros;
    model.pending.push({ txId, micros: op.micros, atMs: world.h.clock.nowMs(), to: op.to });
    return;
  }
  assert.equal(status, 'completed', reply.raw);
  assert.ok(op.micros <= world.thresholdMicros, 'above the threshold but not held');
  if (op.to === 'B') model.available.B += op.micros;
}

async function applyDecide(world: World, op: Extract<Op, { kind: 'decide' }>): Promise<void> {
  const { model } = world;
  const held = model.pending[op.pick % Math.max(1, model.pending.length)];
  if (held === undefined) return;
  const verb = op.approve ? 'approve' : 'reject';
  const url = `/api/v1/agent-wallets/${world.a.walletId}/transactions/${held.txId}/${verb}`;
  const reply = await world.a.user.api.post(url, {});
  if (reply.status !== 200) return assert.ok([403, 409].includes(reply.status), reply.raw);
  model.pending = model.pending.filter((p) => p !== held);
  model.held -= held.micros;
  if (op.approve) {
    if (held.to === 'B') model.available.B += held.micros;
  } else {
    model.available.A += held.micros;
    model.counted = model.counted.filter((c) => c.txId !== held.txId);
  }
}

async function applyWait(world: World, op: Extract<Op, { kind: 'wait' }>): Promise<void> {
  const { model, h } = world;
  h.clock.advanceSeconds(op.seconds);
  await h.services.approvals.expireDue();
  await freshSession(world); // a JWT lives 7 days: the owner logs in again, as a person would
  const listed = await world.a.user.api.get(
    `/api/v1/agent-wallets/${world.a.walletId}/transactions/pending?limit=100`,
  );
  assert.equal(listed.status, 200, listed.raw);
  const still = new Set<string>(listed.body.data.transactions.map((t: { id: string }) => t.id));
  for (const held of model.pending) {
    const due = held.atMs + APPROVAL_TTL_MS <= h.clock.nowMs();
    assert.equal(!still.has(held.txId), due, `expiry of ${held.txId} (due: ${due})`);
    if (still.has(held.txId)) continue;
    model.held -= held.micros;
    model.available.A += held.micros;
    model.counted = model.counted.filter((c) => c.txId !== held.txId);
  }
  model.pending = model.pending.filter((p) => still.has(p.txId));
}

async function freshSession(world: World): Promise<void> {
  const { user } = world.a;
  const login = await call(world.h.app, 'POST', '/api/v1/auth/login', {
    email: user.email,
    password: user.password,
  });
  assert.equal(login.status, 200, login.raw);
  world.a.user = { ...user, token: login.body.data.token, api: as(world.h.app, login.body.data.token) };
}

async function applyFreeze(world: World, op: Extract<Op, { kind: 'freeze' }>): Promise<void> {
  const reply = await world.a.user.api.post(
    `/api/v1/agent-wallets/${world.a.walletId}/${op.frozen ? 'freeze' : 'unfreeze'}`,
  );
  assert.equal(reply.status, 200, reply.raw);
  world.model.frozen = op.frozen;
}

/** The owner revokes the agent's key: it pays nothing from then on; a new key carries on. */
async function applyRevoke(world: World): Promise<void> {
  const { a } = world;
  const revoked = await a.user.api.post(`/api/v1/agent-wallets/${a.walletId}/keys/${a.keyId}/revoke`, {});
  assert.equal(revoked.status, 200, revoked.raw);
  const refused = await tool(world.h, a.key, 'send_payment', { toAddress: EXTERNAL, amount: '0.000001' });
  assert.equal(refused.status, 401, `a revoked key paid: ${refused.raw}`);
  const created = await a.user.api.post(`/api/v1/agent-wallets/${a.walletId}/keys`, { label: 'next' });
  assert.equal(created.status, 201, created.raw);
  world.a = { ...a, key: created.body.data.key, keyId: created.body.data.id };
}

async function apply(world: World, op: Op): Promise<void> {
  switch (op.kind) {
    case 'fund':
    case 'withdraw':
      return applyMove(world, op);
    case 'pay':
      return applyPay(world, op);
    case 'decide':
      return applyDecide(world, op);
    case 'wait':
      return applyWait(world, op);
    case 'freeze':
      return applyFreeze(world, op);
    case 'revoke':
      return applyRevoke(world);
  }
}

/** After every step: the service agrees with the model, and the whole ledger verifies. */
async function assertInvariants(world: World, step: string): Promise<void> {
  const { model, h } = world;
  const a = await tool(h, world.a.key, 'check_balance');
  const b = await tool(h, world.bKey, 'check_balance');
  const master = await world.a.user.api.get('/api/v1/wallet');
  assert.equal(a.body.data.balance, usdc(model.available.A), `A available after ${step}`);
  assert.equal(a.body.data.heldBalance, usdc(model.held), `A held after ${step}`);
  assert.equal(b.body.data.balance, usdc(model.available.B), `B available after ${step}`);
  assert.equal(master.body.data.balance, usdc(model.master), `master after ${step}`);
  assert.equal(
    model.held,
    model.pending.reduce((sum, p) => sum + p.micros, 0),
  );
  const report = await verifyLedger(h.services.store);
  assert.deepEqual(report.problems, [], `ledger after ${step}`);
}

async function newWorld(h: Harness, capMicros: number, thresholdMicros: number): Promise<World> {
  const a = await agentWithKey(h, { master: '1000', fund: '100' });
  const b = await a.user.api.post('/api/v1/agent-wallets', { label: 'B' });
  const bKey = await a.user.api.post(`/api/v1/agent-wallets/${b.body.data.id}/keys`, { label: 'b' });
  await addPolicy(a.user, a.walletId, 'spend_cap_daily', { limit: usdc(capMicros) });
  await addPolicy(a.user, a.walletId, 'require_approval_above', { amount: usdc(thresholdMicros) });
  return {
    h,
    a,
    bKey: bKey.body.data.key,
    bId: b.body.data.id,
    bAddress: b.body.data.address,
    capMicros,
    thresholdMicros,
    model: {
      master: 900 * MICROS,
      available: { A: 100 * MICROS, B: 0 },
      held: 0,
      pending: [],
      counted: [],
      frozen: false,
    },
  };
}

for (const target of await storeTargets()) {
  describe(`ledger and policies against a reference model (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'ledger_property');
    });
    after(() => h.close());

    test('random operation sequences keep every invariant and every decision the model allows', async () => {
      const property = fc.asyncProperty(
        fc.integer({ min: 20, max: 80 }),
        fc.integer({ min: 5, max: 30 }),
        fc.array(opArb, { minLength: 5, maxLength: 20 }),
        async (capUsdc, thresholdUsdc, ops) => {
          const world = await newWorld(h, capUsdc * MICROS, thresholdUsdc * MICROS);
          for (const [i, op] of ops.entries()) {
            await apply(world, op);
            await assertInvariants(world, `step ${i} ${JSON.stringify(op)}`);
          }
        },
      );
      const seed = process.env.FC_SEED === undefined ? {} : { seed: Number(process.env.FC_SEED) };
      const path = process.env.FC_PATH === undefined ? {} : { path: process.env.FC_PATH };
      await fc.assert(property, {
        numRuns: RUNS,
        includeErrorInReport: true,
        interruptAfterTimeLimit: SHRINK_BUDGET_MS,
        ...seed,
        ...path,
      });
    });
  });
}

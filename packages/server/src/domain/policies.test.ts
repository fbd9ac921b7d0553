import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ActivePolicy, capsRemaining, evaluatePolicies, NO_WINDOWS } from './policies.ts';

const ALICE = `0x${'a'.repeat(40)}`;
const BOB = `0x${'b'.repeat(40)}`;
const none = { last24hMicros: 0n, allTimeMicros: 0n, windows: NO_WINDOWS };
const cap = (
  id: string,
  type: 'spend_cap_per_tx' | 'spend_cap_daily' | 'spend_cap_total',
  limitMicros: bigint,
) => ({ id, rule: { type, limitMicros } }) as ActivePolicy;

test('each cap allows reaching it exactly and denies one micro-unit more', () => {
  const perTx = [cap('p1', 'spend_cap_per_tx', 10_000_000n)];
  assert.deepEqual(
    evaluatePolicies(perTx, { amountMicros: 10_000_000n, toAddress: BOB, nowMs: 0 }, none).violations,
    [],
  );
  assert.equal(
    evaluatePolicies(perTx, { amountMicros: 10_000_001n, toAddress: BOB, nowMs: 0 }, none).violations.length,
    1,
  );

  const daily = [cap('p2', 'spend_cap_daily', 50n)];
  const spent = { last24hMicros: 30n, allTimeMicros: 1_000n, windows: NO_WINDOWS };
  assert.deepEqual(
    evaluatePolicies(daily, { amountMicros: 20n, toAddress: BOB, nowMs: 0 }, spent).violations,
    [],
  );
  assert.equal(
    evaluatePolicies(daily, { amountMicros: 21n, toAddress: BOB, nowMs: 0 }, spent).violations[0]?.policyId,
    'p2',
  );

  const total = [cap('p3', 'spend_cap_total', 1_020n)];
  assert.deepEqual(
    evaluatePolicies(total, { amountMicros: 20n, toAddress: BOB, nowMs: 0 }, spent).violations,
    [],
  );
  assert.equal(
    evaluatePolicies(total, { amountMicros: 21n, toAddress: BOB, nowMs: 0 }, spent).violations.length,
    1,
  );
});

test('the allowlist compares lower-case addresses', () => {
  const list: ActivePolicy[] = [
    { id: 'a', rule: { type: 'address_allowlist', addresses: new Set([ALICE]) } },
  ];
  assert.deepEqual(
    evaluatePolicies(list, { amountMicros: 1n, toAddress: ALICE, nowMs: 0 }, none).violations,
    [],
  );
  const denied = evaluatePolicies(list, { amountMicros: 1n, toAddress: BOB, nowMs: 0 }, none).violations;
  assert.deepEqual(denied, [
    {
      policyId: 'a',
      policyType: 'address_allowlist',
      reason: 'the recipient is not on the address allowlist',
      limit: null,
      attempted: BOB,
    },
  ]);
});

test('every violated policy is reported, and approval is required strictly above the threshold', () => {
  const policies: ActivePolicy[] = [
    cap('c1', 'spend_cap_per_tx', 5n),
    cap('c2', 'spend_cap_daily', 5n),
    cap('c3', 'spend_cap_total', 5n),
    { id: 'al', rule: { type: 'address_allowlist', addresses: new Set([ALICE]) } },
    { id: 'ap', rule: { type: 'require_approval_above', amountMicros: 6n } },
  ];
  const decision = evaluatePolicies(policies, { amountMicros: 6n, toAddress: BOB, nowMs: 0 }, none);
  assert.deepEqual(
    decision.violations.map((v) => v.policyId),
    ['c1', 'c2', 'c3', 'al'],
  );
  assert.deepEqual(decision.approvalRequiredBy, []);
  assert.deepEqual(
    evaluatePolicies(policies, { amountMicros: 7n, toAddress: BOB, nowMs: 0 }, none).approvalRequiredBy.map(
      (p) => p.policyId,
    ),
    ['ap'],
  );
});

test('remaining caps take the tightest policy, are never negative, and are null without a cap', () => {
  assert.deepEqual(capsRemaining([], none), { dailyCapRemaining: null, totalCapRemaining: null });
  const policies = [
    cap('d1', 'spend_cap_daily', 100n),
    cap('d2', 'spend_cap_daily', 40n),
    cap('t', 'spend_cap_total', 10n),
  ];
  assert.deepEqual(capsRemaining(policies, { last24hMicros: 30n, allTimeMicros: 30n }), {
    dailyCapRemaining: 10n,
    totalCapRemaining: 0n,
  });
});

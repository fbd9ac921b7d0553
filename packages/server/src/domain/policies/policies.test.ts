import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  type ActivePolicy,
  capsRemaining,
  evaluatePolicies,
  hostListed,
  merchantHostOf,
  NO_WINDOWS,
  tightens,
} from './policies.ts';

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

test('merchant lists judge paid requests only: hosts, *.domain for subdomains, an unreadable seller fails closed', () => {
  const lists = (type: 'merchant_allowlist' | 'merchant_blocklist', hosts: string[]) =>
    [{ id: type, rule: { type, hosts: new Set(hosts) } }] as ActivePolicy[];
  const judged = (policies: ActivePolicy[], merchantHost?: string | null) =>
    evaluatePolicies(
      policies,
      { amountMicros: 1n, toAddress: BOB, nowMs: 0, ...(merchantHost === undefined ? {} : { merchantHost }) },
      none,
    ).violations.map((v) => v.policyType);
  const allow = lists('merchant_allowlist', ['api.example.com', '*.trusted.dev']);
  assert.deepEqual(judged(allow, 'api.example.com'), []);
  assert.deepEqual(judged(allow, 'a.b.trusted.dev'), []);
  assert.deepEqual(
    judged(allow, 'trusted.dev'),
    ['merchant_allowlist'],
    '*.domain names its subdomains only',
  );
  assert.deepEqual(judged(allow, 'example.com'), ['merchant_allowlist']);
  assert.deepEqual(judged(allow, 'evil-api.example.com'), ['merchant_allowlist']);
  assert.deepEqual(
    judged(allow, null),
    ['merchant_allowlist'],
    'a seller with no readable host is not listed',
  );
  assert.deepEqual(judged(allow), [], 'a payment that is not a paid request passes');
  const block = lists('merchant_blocklist', ['*.scam.io']);
  assert.deepEqual(judged(block, 'pay.scam.io'), ['merchant_blocklist']);
  assert.deepEqual(judged(block, 'scam.io.example.com'), []);
  assert.deepEqual(judged(block, null), []);
  assert.deepEqual(judged(block), []);
});

test('merchant hosts: listed exactly or by a wildcard, as a model of the list says (property)', () => {
  const label = fc.stringMatching(/^[a-z0-9]{1,6}$/);
  fc.assert(
    fc.property(
      fc.array(label, { minLength: 1, maxLength: 4 }),
      fc.array(label, { minLength: 1, maxLength: 4 }),
      fc.boolean(),
      (hostLabels, listLabels, wildcard) => {
        const host = hostLabels.join('.');
        const entry = `${wildcard ? '*.' : ''}${listLabels.join('.')}`;
        const suffix = listLabels.join('.');
        const model = wildcard ? host.endsWith(`.${suffix}`) : host === suffix;
        assert.equal(hostListed(new Set([entry]), host), model);
      },
    ),
  );
});

test('merchantHostOf: the URL’s host, lower-case; null when it is not a URL', () => {
  assert.equal(merchantHostOf('https://API.Example.com:8443/report'), 'api.example.com');
  assert.equal(merchantHostOf('http://127.0.0.1:9/x'), '127.0.0.1');
  assert.equal(merchantHostOf('x402 resource (not named)'), null);
  assert.equal(merchantHostOf(''), null);
});

test('merchant lists tighten when the allowlist shrinks or the blocklist grows, and only then', () => {
  const rule = (type: 'merchant_allowlist' | 'merchant_blocklist', hosts: string[]) => ({
    type,
    hosts: new Set(hosts),
  });
  assert.equal(
    tightens(rule('merchant_allowlist', ['a.com', 'b.com']), rule('merchant_allowlist', ['a.com'])),
    true,
  );
  assert.equal(
    tightens(rule('merchant_allowlist', ['a.com']), rule('merchant_allowlist', ['a.com', 'b.com'])),
    false,
  );
  assert.equal(
    tightens(rule('merchant_blocklist', ['a.com']), rule('merchant_blocklist', ['a.com', 'b.com'])),
    true,
  );
  assert.equal(
    tightens(rule('merchant_blocklist', ['a.com', 'b.com']), rule('merchant_blocklist', ['b.com'])),
    false,
  );
});

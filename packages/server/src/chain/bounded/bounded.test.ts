import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getAddress } from 'viem';
import { payoutRefusal } from '../treasury.ts';
import { periodText, type TreasuryReading, treasuryStateView } from '../treasury-view.ts';
import { type BoundedReading, floatReturnAmount, hasShape, refillAmount } from './bounded.ts';
import type { BoundedConfig } from './bounded-config.ts';
import { type Address, type SignedDelegation, unsignedDelegation } from './delegation.ts';

const USDC = 1_000_000n;
const account = `0x${'ac'.repeat(20)}` as Address;
const service = `0x${'5e'.repeat(20)}` as Address;
const usdc = `0x${'cc'.repeat(20)}` as Address;
const bounded: BoundedConfig = {
  accountKind: 'multisig',
  hybridImpl: undefined,
  allowanceMicros: 100n * USDC,
  periodSeconds: 86_400,
  allowanceStartSeconds: undefined,
  floatMaxMicros: 40n * USDC,
  owners: [`0x${'01'.repeat(20)}`, `0x${'02'.repeat(20)}`],
  threshold: 2,
  account: undefined,
  framework: {
    delegationManager: `0x${'d1'.repeat(20)}`,
    simpleFactory: `0x${'d2'.repeat(20)}`,
    multiSigImpl: `0x${'d3'.repeat(20)}`,
    periodTransferEnforcer: `0x${'d4'.repeat(20)}`,
    entryPoint: `0x${'d5'.repeat(20)}`,
  },
};

const reading = (
  floatMicros: bigint,
  remainingMicros: bigint,
  accountMicros = 1_000n * USDC,
): BoundedReading => ({
  account,
  accountMicros,
  floatMicros,
  allowance: { remainingMicros, resetsAtSeconds: 86_400, revoked: false },
});

test('a refill tops the float up to its cap, within the allowance and the account, and only when low', () => {
  assert.equal(refillAmount(reading(0n, 100n * USDC), 40n * USDC, 0n), 40n * USDC, 'empty: up to the cap');
  assert.equal(refillAmount(reading(25n * USDC, 100n * USDC), 40n * USDC, 0n), 0n, 'above half: none');
  assert.equal(refillAmount(reading(19n * USDC, 100n * USDC), 40n * USDC, 0n), 21n * USDC, 'below half');
  assert.equal(refillAmount(reading(25n * USDC, 100n * USDC), 40n * USDC, 30n * USDC), 15n * USDC, 'queued');
  assert.equal(refillAmount(reading(0n, 7n * USDC), 40n * USDC, 0n), 7n * USDC, 'what the period has left');
  assert.equal(
    refillAmount(reading(0n, 100n * USDC, 3n * USDC), 40n * USDC, 0n),
    3n * USDC,
    'what the account has',
  );
  assert.equal(
    refillAmount(reading(50n * USDC, 100n * USDC), 40n * USDC, 90n * USDC),
    0n,
    'never above the cap',
  );
  const revoked = {
    ...reading(0n, 100n * USDC),
    allowance: { remainingMicros: 0n, resetsAtSeconds: 1, revoked: true },
  };
  assert.equal(refillAmount(revoked, 40n * USDC, 0n), 0n);
  assert.equal(
    refillAmount({ ...reading(0n, 0n), allowance: null }, 40n * USDC, 0n),
    0n,
    'no delegation yet',
  );
});

test('the float returns what it holds above its cap and what it still owes: a switched hot treasury, a late sweep', () => {
  assert.equal(floatReturnAmount(470n * USDC, 40n * USDC, 0n), 430n * USDC, 'a hot treasury switched');
  assert.equal(floatReturnAmount(470n * USDC, 40n * USDC, 34n * USDC), 396n * USDC, 'payouts in flight stay');
  assert.equal(floatReturnAmount(70n * USDC, 40n * USDC, 0n), 30n * USDC, 'a late sweep of the hot days');
  assert.equal(floatReturnAmount(40n * USDC, 40n * USDC, 0n), 0n, 'at the cap: nothing');
  assert.equal(
    floatReturnAmount(50n * USDC, 40n * USDC, 20n * USDC),
    0n,
    'owed more than the excess: nothing',
  );
  assert.equal(floatReturnAmount(10n * USDC, 40n * USDC, 0n), 0n, 'below the cap: the refill’s business');
});

test('only a delegation of the configured shape is used: account, service key, token, allowance, period', () => {
  const shape = { account, delegate: service, usdc, bounded };
  const terms = { usdc, allowanceMicros: 100n * USDC, periodSeconds: 86_400, startSeconds: 1_800_000_000 };
  const make = (changes: Partial<typeof terms> = {}, from = account, to = service): SignedDelegation => ({
    ...unsignedDelegation(bounded.framework, from, to, { ...terms, ...changes }, 1n),
    signature: '0x',
  });
  assert.equal(hasShape(make(), shape), true);
  assert.equal(hasShape(make({ allowanceMicros: 101n * USDC }), shape), false);
  assert.equal(hasShape(make({ periodSeconds: 3_600 }), shape), false);
  assert.equal(hasShape(make({ usdc: service }), shape), false);
  assert.equal(hasShape(make({}, service), shape), false);
  assert.equal(hasShape(make({}, account, account), shape), false);
  assert.equal(hasShape({ ...make(), caveats: [] }, shape), false, 'no caveat: unlimited');
  assert.equal(hasShape({ ...make(), caveats: [...make().caveats, ...make().caveats] }, shape), false);
  const otherEnforcer = make();
  otherEnforcer.caveats[0]!.enforcer = `0x${'ee'.repeat(20)}`;
  assert.equal(hasShape(otherEnforcer, shape), false);
});

const hotReading: TreasuryReading = {
  address: service,
  gasWei: 10n ** 18n,
  usdcMicros: 10n * USDC,
  readAtMs: 0,
  atRiskMicros: 10n * USDC,
  bounded: null,
};
const boundedReading: TreasuryReading = {
  ...hotReading,
  atRiskMicros: 70n * USDC,
  bounded: {
    account,
    owners: bounded.owners,
    threshold: 2,
    allowanceMicros: 100n * USDC,
    periodSeconds: 86_400,
    remainingMicros: 60n * USDC,
    resetsAtSeconds: 1_800_086_400,
    refillableMicros: 30n * USDC,
  },
};

test('bounded mode: payouts may count on the refill the allowance permits, x402 and MPP on the float alone', () => {
  assert.equal(payoutRefusal(boundedReading, 0n, 40n * USDC, 'payout'), null);
  assert.match(
    payoutRefusal(boundedReading, 0n, 41n * USDC, 'payout') ?? '',
    /can still refill \(40\.000000/,
  );
  assert.equal(payoutRefusal(boundedReading, 0n, 10n * USDC, 'payment'), null);
  assert.match(payoutRefusal(boundedReading, 0n, 11n * USDC, 'payment') ?? '', /float .*10\.000000 USDC/);
});

test('the treasury view: bounded shows owners, the allowance and float + remaining at risk', () => {
  assert.deepEqual(treasuryStateView('bounded', boundedReading), {
    mode: 'bounded',
    account: getAddress(account),
    owners: ['0x0101010101010101010101010101010101010101', '0x0202020202020202020202020202020202020202'],
    threshold: 2,
    allowance: {
      perPeriod: '100.000000',
      period: '1d',
      remaining: '60.000000',
      resetsAt: '2027-01-16T08:00:00.000Z',
    },
    float: '10.000000',
    atRisk: '70.000000',
  });
  assert.equal(treasuryStateView('hot', hotReading).atRisk, '10.000000');
  assert.deepEqual(['1w', '2d', '12h', '90m', '61s'], [604_800, 172_800, 43_200, 5_400, 61].map(periodText));
});

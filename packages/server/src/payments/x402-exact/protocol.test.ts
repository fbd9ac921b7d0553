import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  chooseRequirement,
  encodePaymentHeader,
  networkChainId,
  paymentPayloadOf,
  requiredOf,
  resourceOf,
  validBeforeSeconds,
  X402_VALID_SECONDS_MAX,
  X402_VALID_SECONDS_MIN,
} from './protocol.ts';

const USDC = '0x036cbd53842c5426634e7929541ec2318f3dcf7e';
const CHAIN = { chainId: 84532, usdcAddress: USDC };
const PAY_TO = '0x00000000000000000000000000000000005E11e4';
const v2 = (extra: Record<string, unknown> = {}) => ({
  scheme: 'exact',
  network: 'eip155:84532',
  amount: '1500000',
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  payTo: PAY_TO,
  maxTimeoutSeconds: 60,
  extra: { name: 'USDC', version: '2' },
  ...extra,
});

describe('x402 requirements', () => {
  test('the exact scheme in this chain’s USDC is chosen among other offers', () => {
    const chosen = chooseRequirement(
      {
        x402Version: 2,
        accepts: [v2({ scheme: 'upto' }), v2({ network: 'eip155:1' }), v2({ asset: PAY_TO }), v2()],
      },
      CHAIN,
    );
    assert.equal(chosen.version, 2);
    assert.equal(chosen.amountMicros, 1_500_000n);
    assert.equal(chosen.payTo, PAY_TO.toLowerCase());
  });

  test('v1: maxAmountRequired and a network name', () => {
    const offer = { ...v2(), network: 'base-sepolia', maxAmountRequired: '250000', amount: undefined };
    const chosen = chooseRequirement({ x402Version: 1, accepts: [offer] }, CHAIN);
    assert.equal(chosen.version, 1);
    assert.equal(chosen.amountMicros, 250_000n);
    assert.equal(networkChainId('eip155:8453'), 8453);
    assert.equal(networkChainId('solana'), null);
  });

  test('nothing payable is X402_UNSUPPORTED, naming what was offered', () => {
    for (const accepts of [[], [v2({ amount: '0' })], [v2({ amount: '1.5' })], [v2({ payTo: 'nobody' })]]) {
      assert.throws(
        () => chooseRequirement({ x402Version: 2, accepts }, CHAIN),
        (error: { code?: string }) => error.code === 'X402_UNSUPPORTED',
      );
    }
    assert.throws(
      () => chooseRequirement({ x402Version: 3, accepts: [v2()] }, CHAIN),
      (error: { code?: string }) => error.code === 'X402_UNSUPPORTED',
    );
  });

  test('requiredOf takes one requirement, a list, or a whole 402 answer', () => {
    assert.equal(requiredOf(v2()).accepts.length, 1);
    assert.equal(requiredOf([v2(), v2()]).accepts.length, 2);
    assert.equal(
      requiredOf({ x402Version: 2, accepts: [v2()], resource: { url: 'https://a/b' } }).accepts.length,
      1,
    );
    assert.equal(requiredOf({ ...v2(), maxAmountRequired: '1' }).x402Version, 1);
  });

  test('validBefore stays between its bounds whatever the seller asks', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), fc.double(), (nowMs, asked) => {
        const seconds = Number(validBeforeSeconds(nowMs, asked)) - Math.floor(nowMs / 1000);
        return seconds >= X402_VALID_SECONDS_MIN && seconds <= X402_VALID_SECONDS_MAX;
      }),
    );
  });

  test('the resource never keeps the query (it may carry secrets)', () => {
    assert.equal(
      resourceOf(new URL('https://api.example.com/v1/report?token=secret#x')),
      'https://api.example.com/v1/report',
    );
  });

  test('payment payloads: v2 carries accepted and resource, v1 the scheme and network; base64 JSON', () => {
    const auth = {
      from: '0x1111111111111111111111111111111111111111',
      to: PAY_TO,
      value: 1_500_000n,
      validAfter: 0n,
      validBefore: 1_800_000_000n,
      nonce: `0x${'ab'.repeat(32)}`,
      signature: '0xsig',
    };
    const two = paymentPayloadOf({ version: 2, requirement: v2() }, { url: 'https://a/b' }, auth);
    assert.deepEqual(Object.keys(two), ['x402Version', 'resource', 'accepted', 'payload']);
    assert.equal((two.payload as { authorization: { value: string } }).authorization.value, '1500000');
    const one = paymentPayloadOf({ version: 1, requirement: v2() }, undefined, auth);
    assert.deepEqual(Object.keys(one), ['x402Version', 'scheme', 'network', 'payload']);
    assert.deepEqual(JSON.parse(Buffer.from(encodePaymentHeader(one), 'base64').toString('utf8')), one);
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { cheapestOffer, type Offer } from './method.ts';

const offer = (method: Offer['method'], amountMicros: bigint): Offer => ({
  method,
  payTo: `0x${'5e'.repeat(20)}`,
  amountMicros,
  termsJson: '{}',
  resourceJson: null,
  extensionsJson: null,
  version: 1,
  resourceUrl: null,
});

test('cheapestOffer: the lowest price; among equals the first (x402 is registered first); null when none', () => {
  assert.equal(cheapestOffer([]), null);
  fc.assert(
    fc.property(
      fc.array(fc.bigInt({ min: 1n, max: 10n ** 15n }), { minLength: 1, maxLength: 8 }),
      (prices) => {
        const offers = prices.map((p, i) => offer(i % 2 === 0 ? 'x402-exact' : 'mpp-charge', p));
        const chosen = cheapestOffer(offers)!;
        // biome-ignore lint/complexity/useMathMinMax: the prices are bigints, which Math.min does not take.
        const lowest = prices.reduce((a, b) => (b < a ? b : a));
        assert.equal(chosen.amountMicros, lowest);
        assert.equal(chosen, offers[prices.indexOf(lowest)], 'the first of equals');
      },
    ),
  );
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { payoutRefusal } from './treasury.ts';
import { type TreasuryReading, treasuryReasons, treasuryView } from './treasury-view.ts';

const reading: TreasuryReading = {
  address: '0x00000000000000000000000000000000000000aa',
  gasWei: 10n ** 16n,
  usdcMicros: 50_000_000n,
  readAtMs: 0,
};

test('a payout is refused before any debit when the chain is unreachable, gas is low or USDC short', () => {
  assert.equal(payoutRefusal(reading, 10n ** 15n, 50_000_000n), null);
  assert.match(payoutRefusal(null, 10n ** 15n, 1n) ?? '', /cannot be reached.*nothing was debited/);
  assert.match(payoutRefusal({ ...reading, gasWei: 1n }, 10n ** 15n, 1n) ?? '', /low on gas/);
  assert.match(
    payoutRefusal(reading, 10n ** 15n, 50_000_001n) ?? '',
    /holds 50\.000000 USDC on chain, less than this payout/,
  );
});

test('health names a treasury problem and shows amounts as strings', () => {
  assert.deepEqual(treasuryReasons(reading, 10n ** 15n), []);
  assert.match(treasuryReasons({ ...reading, gasWei: 0n }, 10n ** 15n)[0] ?? '', /low on gas/);
  // Reasons are public (health needs no auth): the address is shown only where the treasury is.
  assert.ok(!(treasuryReasons({ ...reading, gasWei: 0n }, 10n ** 15n)[0] ?? '').includes(reading.address));
  assert.match(treasuryReasons(null, 1n)[0] ?? '', /cannot be reached/);
  assert.deepEqual(treasuryView(reading), {
    address: reading.address,
    gasWei: '10000000000000000',
    usdc: '50.000000',
  });
  assert.equal(treasuryView(null), null);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChainClient } from './client.ts';
import type { ServiceKeys } from './keys.ts';
import { createTreasuryMonitor, payoutRefusal } from './treasury.ts';
import { type TreasuryReading, treasuryReasons, treasuryView } from './treasury-view.ts';

const reading: TreasuryReading = {
  address: '0x00000000000000000000000000000000000000aa',
  gasWei: 10n ** 16n,
  usdcMicros: 50_000_000n,
  readAtMs: 0,
  atRiskMicros: 50_000_000n,
  bounded: null,
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

/** A chain whose treasury holds `usdcMicros` (changed by the test), counting its balance reads. */
function fakeChain(usdcMicros: bigint) {
  const chain = {
    usdcMicros,
    reads: 0,
    client: {
      getBalance: async () => 10n ** 16n,
      readContract: async () => {
        chain.reads += 1;
        return chain.usdcMicros;
      },
    } as unknown as ChainClient,
  };
  return chain;
}

function monitorOn(chain: ReturnType<typeof fakeChain>, clock: { ms: number }) {
  const config = { usdcAddress: reading.address, minTreasuryGasWei: 10n ** 15n };
  const keys = {
    treasury: { address: '0x00000000000000000000000000000000000000bb' },
  } as unknown as ServiceKeys;
  return createTreasuryMonitor(chain.client, config, keys, () => clock.ms);
}

test('a refusal is decided again on a fresh reading: a sweep that landed since is counted (outside finding 2)', async () => {
  const chain = fakeChain(0n);
  const clock = { ms: 1_000 };
  const monitor = monitorOn(chain, clock);
  await monitor.refresh();
  chain.usdcMicros = 5_000_000n; // the sweep lands; the cached reading still says 0
  clock.ms += 100;
  assert.equal((await monitor.read())?.usdcMicros, 0n, 'the cached reading is stale');
  assert.equal(await monitor.refusal(2_000_000n, 0n, 'payment'), null);
  assert.equal(chain.reads, 2, 'one read more, for the refusal only');
  assert.equal(monitor.latest()?.usdcMicros, 5_000_000n);
  assert.equal(await monitor.refusal(2_000_000n, 0n, 'payment'), null, 'covered: no read');
  assert.equal(chain.reads, 2);
});

test('a treasury still short is refused on the fresh reading; refusals at one instant share one read', async () => {
  const chain = fakeChain(0n);
  const clock = { ms: 1_000 };
  const monitor = monitorOn(chain, clock);
  await monitor.refresh();
  chain.usdcMicros = 1_000_000n;
  clock.ms += 100;
  const refusals = await Promise.all([1, 2, 3].map(() => monitor.refusal(2_000_000n, 0n, 'payment')));
  for (const refusal of refusals)
    assert.match(refusal ?? '', /holds 1\.000000 USDC on chain, less than this payment/);
  assert.equal(chain.reads, 2, 'three refusals, one read');
});

test('a reading taken after the call arrived is not read again', async () => {
  const chain = fakeChain(0n);
  const clock = { ms: 1_000 };
  const monitor = monitorOn(chain, clock);
  assert.match((await monitor.refusal(1n, 0n, 'payment')) ?? '', /holds 0\.000000 USDC/);
  assert.equal(chain.reads, 1, 'the reading was taken for this call');
  clock.ms += 10;
  const gasless = await monitor.refusal(1n, 10n ** 17n, 'payout');
  assert.match(gasless ?? '', /low on gas/);
  assert.equal(chain.reads, 2, 'the cached reading was older than this call: read once more, then decided');
});

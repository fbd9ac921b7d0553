import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { BALANCE_MAX_MICROS } from '../domain/money/accounts.ts';
import {
  type ChainTransfer,
  type DepositTarget,
  planDeposits,
  WATCH_RANGE_BLOCKS_MAX,
  watchRange,
} from './deposits.ts';

const ours = '0x00000000000000000000000000000000000000a1';
const target: DepositTarget = { walletId: 'wal_1', userId: 'usr_1', kind: 'master', address: ours };
const transfer = (blockNumber: bigint, to = ours, valueMicros = 5n): ChainTransfer => ({
  txHash: `0x${blockNumber.toString(16).padStart(64, '0')}`,
  logIndex: 0,
  blockNumber,
  from: '0x00000000000000000000000000000000000000ff',
  to,
  valueMicros,
});

test('a round reads from after the cursor to the head, bounded, and credits only CONFIRMATIONS deep', () => {
  assert.deepEqual(watchRange(10n, 20n, 1), { fromBlock: 11n, toBlock: 20n, confirmedTo: 20n });
  assert.deepEqual(watchRange(10n, 20n, 3), { fromBlock: 11n, toBlock: 20n, confirmedTo: 18n });
  assert.deepEqual(watchRange(10n, 12n, 12), { fromBlock: 11n, toBlock: 12n, confirmedTo: 1n });
  const far = watchRange(0n, 10_000n, 12);
  assert.equal(far.toBlock - far.fromBlock + 1n, WATCH_RANGE_BLOCKS_MAX);
  assert.equal(far.confirmedTo, far.toBlock);
});

test('transfers to service addresses are credited when confirmed, pending above; others ignored', () => {
  const targets = new Map([[ours, target]]);
  const plan = planDeposits(
    [
      transfer(5n),
      transfer(9n),
      transfer(6n, '0x00000000000000000000000000000000000000b2'),
      transfer(4n, ours, 0n),
    ],
    targets,
    7n,
  );
  assert.deepEqual(
    plan.credit.map((c) => c.blockNumber),
    [5n],
  );
  assert.deepEqual(
    plan.pending.map((c) => c.blockNumber),
    [9n],
  );
  assert.deepEqual(plan.refused, []);
  const huge = planDeposits([transfer(1n, ours, BALANCE_MAX_MICROS + 1n)], targets, 7n);
  assert.equal(huge.credit.length, 0, 'a transfer past the balance bound is never credited');
  assert.equal(huge.refused.length, 1);
});

test('property: nothing above the confirmed height is ever credited, and every service deposit is placed once', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.record({
          block: fc.bigInt({ min: 1n, max: 100n }),
          ours: fc.boolean(),
          value: fc.bigInt({ min: 1n, max: 10n ** 12n }),
        }),
      ),
      fc.bigInt({ min: 0n, max: 100n }),
      (items, confirmedTo) => {
        const transfers = items.map((i) =>
          transfer(i.block, i.ours ? ours : '0x00000000000000000000000000000000000000c3', i.value),
        );
        const plan = planDeposits(transfers, new Map([[ours, target]]), confirmedTo);
        assert.ok(plan.credit.every((c) => c.blockNumber <= confirmedTo));
        assert.ok(plan.pending.every((c) => c.blockNumber > confirmedTo));
        assert.equal(plan.credit.length + plan.pending.length, items.filter((i) => i.ours).length);
      },
    ),
  );
});

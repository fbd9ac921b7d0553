// The pure parts of the kept spending windows: which windows policies need, and what moving a row in time
// takes off or puts back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ActivePolicy, DAY_MS, WINDOWS } from '../../domain/policies/policies.ts';
import { shiftOf, spansOf } from './spending-windows.ts';

test('shiftOf: later takes off what left the window, earlier puts back what re-entered, the same time nothing', () => {
  const row = { spanMs: 1_000, throughMs: 5_000 };
  // The window was (4000, …]; at 5300 it is (4300, …]: payments created in (4000, 4300] left it.
  assert.deepEqual(shiftOf(row, 5_300), { loMs: 4_000, hiMs: 4_300, sign: -1 });
  // A clock 200 ms behind (another instance): (3800, 4000] is inside again.
  assert.deepEqual(shiftOf(row, 4_800), { loMs: 3_800, hiMs: 4_000, sign: 1 });
  assert.equal(shiftOf(row, 5_000), null);
});

test('spansOf: the daily cap is a 24-hour window; window budgets and counts name theirs; others none', () => {
  const policy = (rule: ActivePolicy['rule']): ActivePolicy => ({ id: 'pol_x', rule });
  const spans = spansOf([
    policy({ type: 'spend_cap_daily', limitMicros: 1n }),
    policy({ type: 'spend_cap_window', limitMicros: 1n, window: '1h' }),
    policy({ type: 'tx_count_cap', count: 3, window: '24h' }),
    policy({ type: 'recipient_cap', limitMicros: 1n, window: '7d' }),
    policy({ type: 'spend_cap_total', limitMicros: 1n }),
  ]);
  assert.deepEqual(
    [...spans].sort((a, b) => a - b),
    [WINDOWS['1h'], DAY_MS],
  );
});

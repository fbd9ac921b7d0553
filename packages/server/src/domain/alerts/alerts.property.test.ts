// Alerts are edge-triggered (contract section 10): over any sequence of balances a balance_below alert fires
// exactly once per fall below its amount, and over any sequence of spending a cap_used alert once per rise to its
// share; checked against a reference that counts the crossings.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { emptyWindows, type WalletState } from '../money/batch-state.ts';
import { type AlertState, evaluateAlert, evaluateTreasuryAlert, reached } from './alerts.ts';

function wallet(availableMicros: bigint, spentMicros = 0n, capMicros = 100n): WalletState {
  return {
    id: 'wal_1',
    userId: 'usr_1',
    kind: 'agent',
    address: '0x01',
    label: null,
    createdAtMs: 0,
    updatedAtMs: 0,
    frozen: false,
    availableMicros,
    heldMicros: 0n,
    spentMicros,
    spent24hMicros: 0n,
    windows: emptyWindows(),
    policies: [{ id: 'pol_total', rule: { type: 'spend_cap_total', limitMicros: capMicros } }],
    pendingCount: 0,
  };
}

test('balance_below fires once per fall below the amount', () => {
  fc.assert(
    fc.property(fc.bigInt(1n, 100n), fc.array(fc.bigInt(0n, 200n), { maxLength: 40 }), (amount, balances) => {
      let alert: AlertState = {
        id: 'a',
        userId: 'u',
        walletId: 'wal_1',
        rule: { type: 'balance_below', amountMicros: amount },
        fired: new Set(),
      };
      let firings = 0;
      let expected = 0;
      let below = false;
      for (const balance of balances) {
        const next = evaluateAlert(alert, wallet(balance), 0);
        firings += next.firings.length;
        alert = { ...alert, fired: next.fired };
        if (balance < amount && !below) expected += 1;
        below = balance < amount;
      }
      assert.equal(firings, expected);
    }),
  );
});

test('cap_used fires once per rise to its share of a cap, with integer arithmetic only', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 100 }),
      fc.array(fc.bigInt(0n, 150n), { maxLength: 40 }),
      (percent, spends) => {
        let alert: AlertState = {
          id: 'a',
          userId: 'u',
          walletId: 'wal_1',
          rule: { type: 'cap_used', percent },
          fired: new Set(),
        };
        let firings = 0;
        let expected = 0;
        let over = false;
        for (const spent of spends) {
          const next = evaluateAlert(alert, wallet(0n, spent), 0);
          firings += next.firings.length;
          alert = { ...alert, fired: next.fired };
          const now = spent * 100n >= 100n * BigInt(percent);
          if (now && !over) expected += 1;
          over = now;
        }
        assert.equal(firings, expected);
      },
    ),
  );
  assert.equal(reached(79n, 100n, 80), false);
  assert.equal(reached(80n, 100n, 80), true);
  assert.equal(reached(1n, 3n, 34), false); // 33.3 % is not 34 %
});

test('treasury_at_risk fires once per rise above its amount, and a wallet batch leaves it as it is', () => {
  fc.assert(
    fc.property(fc.bigInt(1n, 100n), fc.array(fc.bigInt(0n, 200n), { maxLength: 40 }), (amount, readings) => {
      let alert: AlertState = {
        id: 'a',
        userId: 'u',
        walletId: 'wal_1',
        rule: { type: 'treasury_at_risk', amountMicros: amount },
        fired: new Set(),
      };
      let firings = 0;
      let expected = 0;
      let above = false;
      for (const atRisk of readings) {
        const batch = evaluateAlert(alert, wallet(0n), 0);
        assert.deepEqual([batch.firings, [...batch.fired]], [[], [...alert.fired]]);
        const next = evaluateTreasuryAlert(alert, atRisk);
        for (const firing of next.firings) {
          assert.equal(firing.type, 'treasury.at_risk');
          assert.ok(firing.type === 'treasury.at_risk' && firing.atRiskMicros === atRisk);
        }
        firings += next.firings.length;
        alert = { ...alert, fired: next.fired };
        if (atRisk > amount && !above) expected += 1;
        above = atRisk > amount;
      }
      assert.equal(firings, expected);
    }),
  );
});

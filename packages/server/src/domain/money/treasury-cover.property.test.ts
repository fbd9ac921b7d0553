// Bounded mode by property: who pays an outside payment (treasuryCover, against the contract's words), and what
// the ledger batch does with one only the owners can pay — held exactly like an approval-pending payment, with the
// reason and one owners' request, while everything the policies and the balance decide stays as it was.
// FC_SEED / FC_RUNS reproduce or widen a run.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { ActivePolicy } from '../policies/policies.ts';
import { decideBatch } from './batch.ts';
import { type BatchContext, type BatchState, emptyWindows, type WalletState } from './batch-state.ts';
import type { TreasurySignatureRequestsTable } from './owners-request-row.ts';
import type { PaymentCommand } from './payment-batch.ts';
import { OWNERS_WAIT_REASON, treasuryCover } from './treasury-cover.ts';

const RUNS = Number(process.env.FC_RUNS ?? 300);
const SEED = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);
const NOW_MS = Date.UTC(2026, 10, 29);
const OUTSIDE = `0x${'ab'.repeat(20)}`;
const micros = fc.bigInt(0n, 1_000n);

describe('who pays an outside payment in bounded mode', () => {
  test('the owners exactly when the float and the remaining allowance together fall short', () => {
    fc.assert(
      fc.property(micros, micros, fc.bigInt(1n, 2_000n), (floatMicros, refillableMicros, amountMicros) => {
        const reading = { floatMicros, refillableMicros };
        const payout = treasuryCover(reading, amountMicros, 'payout');
        const payment = treasuryCover(reading, amountMicros, 'payment');
        const short = floatMicros + refillableMicros < amountMicros;
        // A payout waits for a refill when it must; an authorization is signed from the float as it is.
        assert.equal(payout, short ? 'owners' : 'float');
        assert.equal(payment, short ? 'owners' : floatMicros >= amountMicros ? 'float' : 'later');
        // Less is never harder to pay, more never easier.
        for (const what of ['payout', 'payment'] as const) {
          const rank = { float: 0, later: 1, owners: 2 };
          const smaller = treasuryCover(reading, amountMicros - 1n, what);
          assert.ok(rank[smaller] <= rank[treasuryCover(reading, amountMicros, what)]);
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});

const policyArb: fc.Arbitrary<ActivePolicy> = fc
  .oneof(
    fc.record({ type: fc.constant('spend_cap_per_tx' as const), limitMicros: fc.bigInt(0n, 500n) }),
    fc.record({ type: fc.constant('require_approval_above' as const), amountMicros: fc.bigInt(0n, 300n) }),
  )
  .map((rule) => ({ id: 'pol_x', rule }) as ActivePolicy);

const walletArb = fc
  .record({
    availableMicros: fc.bigInt(0n, 600n),
    heldMicros: fc.bigInt(0n, 100n),
    frozen: fc.boolean(),
    policies: fc.array(policyArb, { maxLength: 2 }),
  })
  .map(
    (w): WalletState => ({
      ...w,
      id: 'wal_a',
      userId: 'usr_1',
      kind: 'agent',
      address: `0x${'0a'.repeat(20)}`,
      label: 'agent',
      createdAtMs: NOW_MS,
      updatedAtMs: NOW_MS,
      spentMicros: 0n,
      spent24hMicros: 0n,
      pendingCount: 0,
      windows: emptyWindows(),
      policies: w.policies.map((p, i) => ({ ...p, id: `pol_${i}` })),
    }),
  );

const stateOf = (wallet: WalletState): BatchState => ({
  wallets: new Map([[wallet.id, { ...wallet, windows: emptyWindows() }]]),
  walletIdByAddress: new Map([[wallet.address, wallet.id]]),
  masterIdByUser: new Map(),
  keys: new Map(),
  held: new Map(),
  approvals: new Map(),
});

function context(): BatchContext {
  let n = 0;
  return {
    railName: 'evm',
    railSettlesAtOnce: false,
    approvalTtlMs: 60_000,
    newId: (prefix) => {
      n += 1;
      return `${prefix}_${n}`;
    },
    movementData: () => null,
  };
}

/** An owners' request as chain/bounded prepares one (the decision only carries it to the write). */
const ownersRequest = (): TreasurySignatureRequestsTable => ({
  id: 'osr_1',
  chain_id: 31337n,
  account: '0x00000000000000000000000000000000000000aa',
  kind: 'transfer',
  transaction_id: null,
  to_address: OUTSIDE,
  amount_micros: 1n,
  operation_json: '{}',
  digest: '0x00',
  signatures_json: '[]',
  signatures_needed: 1n,
  status: 'awaiting_signatures',
  outbox_id: null,
  created_at_ms: 0n,
  updated_at_ms: 0n,
});

const send = (amountMicros: bigint, owners: boolean): PaymentCommand => ({
  kind: 'send',
  keyId: 'key_1',
  walletId: 'wal_a',
  toAddress: OUTSIDE,
  amountMicros,
  memo: null,
  reason: null,
  idempotency: { scope: 'wallet:wal_a', key: 'k1', fingerprint: 'f1' },
  nowMs: NOW_MS,
  ...(owners ? { owners: { request: ownersRequest() } } : {}),
});

/** What a client and the books see of a decision, the owners' wait aside. */
function decided(state: BatchState, command: PaymentCommand, times = 1) {
  const { results, effects } = decideBatch(state, Array(times).fill(command), context());
  const wallet = state.wallets.get('wal_a')!;
  return { results, effects, availableMicros: wallet.availableMicros, heldMicros: wallet.heldMicros };
}

describe('a payment only the owners can pay, in the ledger batch', () => {
  test('held like an approval with the reason and one request; any other decision unchanged', () => {
    fc.assert(
      fc.property(walletArb, fc.bigInt(1n, 500n), fc.integer({ min: 1, max: 3 }), (wallet, amount, times) => {
        const plain = decided(stateOf(wallet), send(amount, false), times);
        const waiting = decided(stateOf(wallet), send(amount, true), times);
        const first = plain.results[0]!;
        const paidNow =
          first.ok &&
          first.value.outcome.ok &&
          (first.value.outcome.data as { status: string }).status === 'processing';
        if (!paidNow) {
          // Refused, denied, short of balance or held for approval: exactly as without the owners.
          assert.deepEqual(waiting.results, plain.results);
          assert.deepEqual(waiting.effects.ownersRequests, []);
          return;
        }
        const outcome = (waiting.results[0] as { ok: true; value: { outcome: { data: unknown } } }).value
          .outcome.data as { txId: string; status: string; reason: string };
        assert.equal(outcome.status, 'pending');
        assert.equal(outcome.reason, OWNERS_WAIT_REASON);
        // The same available balance leaves the wallet; it waits in the hold instead of going out.
        assert.equal(waiting.availableMicros, plain.availableMicros);
        assert.equal(waiting.heldMicros, wallet.heldMicros + amount);
        assert.deepEqual(waiting.effects.payouts, []);
        // One request, naming this payment, however often the key is replayed.
        assert.deepEqual(waiting.effects.ownersRequests, [
          { transactionId: outcome.txId, request: ownersRequest() },
        ]);
        for (const later of waiting.results.slice(1)) assert.ok(later.ok && later.value.replayed);
        const record = waiting.effects.records.find((r) => r.id === outcome.txId)!;
        assert.equal(record.status, 'pending');
        assert.equal(record.reason, OWNERS_WAIT_REASON);
        assert.equal(record.expiresAtMs, null, 'no approval window: the owners have 7 days');
        for (const tx of waiting.effects.ledgerTransactions) {
          const legs = waiting.effects.entries.filter((e) => e.transactionId === tx.id);
          assert.equal(
            legs.reduce((sum, e) => sum + e.amountMicros, 0n),
            0n,
          );
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});

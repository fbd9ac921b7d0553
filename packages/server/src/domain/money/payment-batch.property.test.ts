// Properties of the batch deciders (issue 11): a batch decided at once equals the same commands decided one by
// one, each against the state the previous ones left; every ledger transaction sums to zero; no balance goes
// negative or past the bound; money is conserved; an idempotency key is never used twice for different
// parameters. FC_SEED / FC_RUNS reproduce or widen a run.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { AppError } from '../../errors.ts';
import type { ActivePolicy } from '../policies/policies.ts';
import { BALANCE_MAX_MICROS } from './accounts.ts';
import type { ResolveCommand } from './approval-batch.ts';
import { type BatchCommand, decideBatch } from './batch.ts';
import {
  type BatchContext,
  type BatchEffects,
  type BatchState,
  type CommandResult,
  emptyWindows,
  type HeldRow,
  type WalletState,
} from './batch-state.ts';
import type { PaymentCommand } from './payment-batch.ts';

const RUNS = Number(process.env.FC_RUNS ?? 300);
const SEED = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);
const WALLETS = ['wal_a', 'wal_b', 'wal_c', 'wal_m'] as const;
const address = (id: string) => `0x${Buffer.from(id).toString('hex').padEnd(40, '0')}`;
const OUTSIDE = [`0x${'ab'.repeat(20)}`, `0x${'cd'.repeat(20)}`];
const NOW_MS = Date.UTC(2026, 10, 1);

const policyArb: fc.Arbitrary<ActivePolicy> = fc
  .oneof(
    fc.record({
      type: fc.constantFrom(
        'spend_cap_per_tx' as const,
        'spend_cap_daily' as const,
        'spend_cap_total' as const,
      ),
      limitMicros: fc.bigInt(0n, 500n),
    }),
    fc.record({ type: fc.constant('require_approval_above' as const), amountMicros: fc.bigInt(0n, 300n) }),
    fc.record({
      type: fc.constant('address_allowlist' as const),
      addresses: fc.subarray([...WALLETS.map(address), ...OUTSIDE]).map((list) => new Set(list)),
    }),
  )
  .map((rule) => ({ id: 'pol_x', rule }) as ActivePolicy);

const walletArb = (id: string) =>
  fc
    .record({
      availableMicros: fc.oneof(fc.bigInt(0n, 1_000n), fc.constant(BALANCE_MAX_MICROS - 10n)),
      heldMicros: fc.bigInt(0n, 100n),
      spentMicros: fc.bigInt(0n, 400n),
      frozen: fc.boolean(),
      policies: fc.array(policyArb, { maxLength: 3 }),
    })
    .map(
      (w): WalletState => ({
        ...w,
        id,
        userId: 'usr_1',
        kind: id === 'wal_m' ? 'master' : 'agent',
        address: address(id),
        label: id,
        createdAtMs: NOW_MS,
        updatedAtMs: NOW_MS,
        pendingCount: 0,
        spent24hMicros: w.spentMicros / 2n,
        windows: emptyWindows(),
        policies: w.policies.map((p, i) => ({ ...p, id: `pol_${id}_${i}` })),
      }),
    );

const commandArb: fc.Arbitrary<PaymentCommand> = fc
  .record({
    kind: fc.constantFrom('send' as const, 'send' as const, 'request_approval' as const),
    walletId: fc.constantFrom('wal_a', 'wal_b', 'wal_c'),
    toAddress: fc.constantFrom(...WALLETS.map(address), ...OUTSIDE),
    amountMicros: fc.bigInt(1n, 400n),
    idempotency: fc.option(
      fc.record({ key: fc.constantFrom('k1', 'k2'), fingerprint: fc.constantFrom('f1', 'f2') }),
      { nil: null },
    ),
  })
  .map((c) => ({
    ...c,
    keyId: 'key_1',
    memo: null,
    reason: null,
    nowMs: NOW_MS,
    idempotency: c.idempotency === null ? null : { scope: `wallet:${c.walletId}`, ...c.idempotency },
  }));

/** The owner's movements beside the agents' payments: fund, withdraw (also on another user's wallet), deposit. */
const ownerCommandArb: fc.Arbitrary<BatchCommand> = fc.oneof(
  fc
    .record({
      kind: fc.constantFrom('fund' as const, 'withdraw' as const),
      userId: fc.constantFrom('usr_1', 'usr_1', 'usr_other'),
      walletId: fc.constantFrom('wal_a', 'wal_b', 'wal_m'),
      amountMicros: fc.bigInt(1n, 600n),
      idempotency: fc.option(
        fc.record({ key: fc.constantFrom('k1', 'k3'), fingerprint: fc.constantFrom('f1', 'f2') }),
        { nil: null },
      ),
    })
    .map((c) => ({
      ...c,
      nowMs: NOW_MS,
      idempotency: c.idempotency === null ? null : { scope: `user:${c.userId}`, ...c.idempotency },
    })),
  fc.record({
    kind: fc.constant('deposit' as const),
    userId: fc.constantFrom('usr_1', 'usr_other'),
    amountMicros: fc.bigInt(1n, 1_000n),
    rail: fc.constant('sandbox'),
    idempotency: fc.constant(null),
    nowMs: fc.constant(NOW_MS),
  }),
);

/** Held payments (awaiting approval) and the agent wallet each belongs to. */
const HELD = [
  ['tx_h1', 'wal_a'],
  ['tx_h2', 'wal_b'],
  ['tx_h3', 'wal_c'],
  ['tx_h4', 'wal_a'],
] as const;

const heldArb = ([id, walletId]: readonly [string, string]) =>
  fc
    .record({
      amountMicros: fc.bigInt(1n, 200n),
      toAddress: fc.constantFrom(...WALLETS.filter((w) => w !== walletId).map(address), ...OUTSIDE),
      x402: fc.boolean(),
      expired: fc.boolean(),
    })
    .map(
      (h): HeldRow => ({
        id,
        wallet_id: walletId,
        user_id: 'usr_1',
        type: 'payment',
        status: 'pending',
        approvals_required: null,
        authorized_micros: null,
        amount_micros: h.amountMicros,
        to_address: h.toAddress,
        counterparty_wallet_id: null,
        memo: null,
        reason: 'above the threshold',
        rail: 'sandbox',
        tx_hash: null,
        rejection_reason: null,
        violations_json: null,
        initiated_by: 'key:key_1',
        idempotency_key: null,
        expires_at_ms: BigInt(h.expired ? NOW_MS - 1 : NOW_MS + 60_000),
        related_transaction_id: null,
        resource: h.x402 ? 'https://api.example/paid' : null,
        payment_method: h.x402 ? 'x402-exact' : null,
        receipt: null,
        created_at_ms: BigInt(NOW_MS - 1_000),
        updated_at_ms: BigInt(NOW_MS - 1_000),
      }),
    );

/** The owner's answers and expiry, mostly naming a held payment with its own wallet. */
const resolveArb: fc.Arbitrary<BatchCommand> = fc
  .record({
    kind: fc.constantFrom('approve' as const, 'reject' as const, 'expire' as const),
    held: fc.constantFrom(...HELD, ['tx_none', 'wal_a'] as const),
    otherWallet: fc.oneof(
      { weight: 4, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.constantFrom(...WALLETS) },
    ),
    userId: fc.constantFrom('usr_1', 'usr_1', 'usr_other'),
    reason: fc.option(fc.constantFrom('too much', 'not now'), { nil: null }),
  })
  .map(
    (c): ResolveCommand => ({
      kind: c.kind,
      userId: c.kind === 'expire' ? null : c.userId,
      member: c.kind === 'expire' ? null : { id: c.userId, email: `${c.userId}@example.com` },
      walletId: c.otherWallet ?? c.held[1],
      transactionId: c.held[0],
      reason: c.kind === 'reject' ? c.reason : null,
      idempotency: null,
      nowMs: NOW_MS,
    }),
  );

const commandsArb = (minLength: number) =>
  fc.array(
    fc.oneof(
      { weight: 3, arbitrary: commandArb as fc.Arbitrary<BatchCommand> },
      { weight: 1, arbitrary: ownerCommandArb },
      { weight: 1, arbitrary: resolveArb },
    ),
    { minLength, maxLength: 24 },
  );

const stateArb = fc
  .tuple(fc.tuple(...WALLETS.map(walletArb)), fc.tuple(...HELD.map(heldArb)))
  .map(([wallets, held]): BatchState => {
    // A wallet's hold account holds at least its payments awaiting approval (verify-ledger's invariant).
    for (const row of held) wallets.find((w) => w.id === row.wallet_id)!.heldMicros += row.amount_micros;
    return {
      wallets: new Map(wallets.map((w) => [w.id, w])),
      walletIdByAddress: new Map(wallets.map((w) => [w.address, w.id])),
      masterIdByUser: new Map([['usr_1', 'wal_m']]),
      keys: new Map(),
      held: new Map(held.map((row) => [row.id, row])),
      approvals: new Map(),
    };
  });

function cloneState(state: BatchState): BatchState {
  return {
    wallets: new Map([...state.wallets].map(([id, w]) => [id, { ...w }])),
    walletIdByAddress: new Map(state.walletIdByAddress),
    masterIdByUser: new Map(state.masterIdByUser),
    keys: new Map(state.keys),
    held: new Map(state.held),
    approvals: new Map(state.approvals),
  };
}

function context(): BatchContext {
  let n = 0;
  return {
    railName: 'sandbox',
    railSettlesAtOnce: true,
    approvalTtlMs: 60_000,
    newId: (prefix) => {
      n += 1;
      return `${prefix}_${n}`;
    },
    movementData: (record, agent, masterAvailableMicros) => ({ record, agent, masterAvailableMicros }),
  };
}

/** Results compared by what a client sees: the outcome, or the error's code and message. */
function visible(result: CommandResult) {
  if (result.ok) return result.value;
  const error = result.error as Error;
  return { error: error instanceof AppError ? error.code : error.name, message: error.message };
}

function merge(into: BatchEffects, from: BatchEffects): void {
  into.ledgerTransactions.push(...from.ledgerTransactions);
  into.entries.push(...from.entries);
  into.records.push(...from.records);
  into.deposits.push(...from.deposits);
  into.idempotency.push(...from.idempotency);
  into.payouts.push(...from.payouts);
  into.transitions.push(...from.transitions);
  into.notices.push(...from.notices);
  into.x402Approved.push(...from.x402Approved);
  into.ownersRequests.push(...from.ownersRequests);
  into.approvals.push(...from.approvals);
  into.denials.push(...from.denials);
  into.freezes.push(...from.freezes);
  for (const [id, delta] of from.balanceDeltas)
    into.balanceDeltas.set(id, (into.balanceDeltas.get(id) ?? 0n) + delta);
}

const total = (state: BatchState) =>
  [...state.wallets.values()].reduce((sum, w) => sum + w.availableMicros + w.heldMicros, 0n);

describe('payment batch deciders', () => {
  test('a batch decided at once equals its commands decided one by one', () => {
    fc.assert(
      fc.property(stateArb, commandsArb(1), (initial, commands) => {
        const together = cloneState(initial);
        const batch = decideBatch(together, commands, context());
        const alone = cloneState(initial);
        const oneByOne = {
          results: [] as CommandResult[],
          effects: decideBatch(alone, [], context()).effects,
        };
        const ids = context();
        for (const command of commands) {
          const step = decideBatch(alone, [command], ids);
          oneByOne.results.push(...step.results);
          merge(oneByOne.effects, step.effects);
        }
        assert.deepEqual(batch.results.map(visible), oneByOne.results.map(visible));
        assert.deepEqual(batch.effects, oneByOne.effects);
        assert.deepEqual(together, alone);
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  });

  test('the generated batches reach every outcome (the properties above are not vacuous)', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(stateArb, commandsArb(1), (initial, commands) => {
        for (const result of decideBatch(cloneState(initial), commands, context()).results) {
          const shown = visible(result) as {
            outcome?: { ok: boolean; code?: string; data?: { status?: string } };
            error?: string;
            replayed?: boolean;
          };
          if (shown.replayed === true) seen.add('replayed');
          if (shown.error !== undefined) seen.add(shown.error);
          else if (shown.outcome?.ok === true) seen.add(shown.outcome.data?.status ?? 'ok');
          else seen.add(shown.outcome?.code ?? '?');
        }
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
    for (const outcome of [
      'completed',
      'pending',
      'POLICY_DENIED',
      'INSUFFICIENT_BALANCE',
      'WALLET_FROZEN',
      'VALIDATION_ERROR',
      'IDEMPOTENCY_CONFLICT',
      'replayed',
      'BalanceLimitError',
      'NOT_FOUND',
      'INVALID_STATE',
      'ok',
    ]) {
      assert.ok(seen.has(outcome), `no batch reached ${outcome}: ${[...seen].join(', ')}`);
    }
  });

  test('transfers sum to zero, balances stay within bounds, and money is conserved', () => {
    fc.assert(
      fc.property(stateArb, commandsArb(1), (initial, commands) => {
        const state = cloneState(initial);
        const { effects } = decideBatch(state, commands, context());
        const sums = new Map<string, bigint>();
        for (const e of effects.entries)
          sums.set(e.transactionId, (sums.get(e.transactionId) ?? 0n) + e.amountMicros);
        for (const [id, sum] of sums) assert.equal(sum, 0n, `${id} sums to ${sum}`);
        for (const w of state.wallets.values()) {
          assert.ok(w.availableMicros >= 0n && w.heldMicros >= 0n, `${w.id} went negative`);
          assert.ok(w.availableMicros <= BALANCE_MAX_MICROS, `${w.id} passed the bound`);
        }
        const leftMicros = effects.entries
          .filter((e) => e.accountId.startsWith('rail:'))
          .reduce((s, e) => s + e.amountMicros, 0n);
        assert.equal(
          total(state) + leftMicros,
          total(initial),
          'what left through the rail is all that is gone',
        );
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  });

  test('a held payment leaves pending at most once, and its hold gives up exactly its amount', () => {
    fc.assert(
      fc.property(stateArb, commandsArb(2), (initial, commands) => {
        const state = cloneState(initial);
        const { effects } = decideBatch(state, commands, context());
        const left = effects.transitions.filter((t) => t.before.status === 'pending').map((t) => t.after.id);
        assert.equal(new Set(left).size, left.length, 'a payment was answered twice');
        for (const wallet of ['wal_a', 'wal_b', 'wal_c']) {
          const answered = [...state.held.values()].filter(
            (row) =>
              row.wallet_id === wallet &&
              initial.held.get(row.id)?.status === 'pending' &&
              row.status !== 'pending',
          );
          const heldNow = state.wallets.get(wallet)!.heldMicros;
          const heldBefore = initial.wallets.get(wallet)!.heldMicros;
          const added = effects.entries
            .filter((e) => e.accountId === `${wallet}:hold` && e.amountMicros > 0n)
            .reduce((sum, e) => sum + e.amountMicros, 0n);
          const released = answered.reduce((sum, row) => sum + row.amount_micros, 0n);
          assert.equal(
            heldNow,
            heldBefore + added - released,
            `${wallet}'s hold moved by more than its answers`,
          );
        }
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  });

  test('an idempotency key replays its first outcome or is refused; it never pays twice', () => {
    fc.assert(
      fc.property(stateArb, commandsArb(2), (initial, commands) => {
        const { results, effects } = decideBatch(cloneState(initial), commands, context());
        const stored = new Set(effects.idempotency.map((k) => `${k.scope}\n${k.key}`));
        assert.equal(stored.size, effects.idempotency.length, 'each key is stored once');
        const first = new Map<string, CommandResult>();
        for (const [i, command] of commands.entries()) {
          if (command.idempotency === null || !results[i]!.ok) continue;
          const name = `${command.idempotency.scope}\n${command.idempotency.key}`;
          const earlier = first.get(name);
          if (earlier === undefined) first.set(name, results[i]!);
          else assert.deepEqual(visible(results[i]!), { ...(visible(earlier) as object), replayed: true });
        }
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  });
});

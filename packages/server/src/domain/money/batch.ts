// Money commands decided a batch at a time, in memory, as pure functions: given the state a batch loaded (the
// wallets it touches with their balances, spent totals and active policies, and the idempotency keys it names),
// each command is decided in arrival order — later commands see earlier ones' effects — and every effect is
// collected for the store to write with a few multi-row statements (services/money/batch.ts). Nothing here
// reads or writes a database, so the decisions are tested fast and by property: a batch decided at once equals
// its commands decided one by one. The database constraints stay the second half of each assertion (a guarded
// balance update that must match every account, a check that no balance is negative).

import type { Outcome } from '../outcome.ts';
import { decideResolve, type ResolveCommand } from './approval-batch.ts';
import {
  type BatchContext,
  type BatchEffects,
  type BatchState,
  type CommandResult,
  emptyEffects,
  keyOf,
} from './batch-state.ts';
import { idempotencyConflict, keyIsLive } from './idempotency.ts';
import { type DepositCommand, decideDeposit, decideMove, type MoveCommand } from './movement-batch.ts';
import { decidePayment, type PaymentCommand } from './payment-batch.ts';
import { decideMasterWithdrawal, type MasterWithdrawalCommand } from './withdrawal-batch.ts';

export type BatchCommand =
  | PaymentCommand
  | MoveCommand
  | DepositCommand
  | ResolveCommand
  | MasterWithdrawalCommand;

/** Decides every command in order against `state` (which it updates) and collects the effects. */
export function decideBatch(
  state: BatchState,
  commands: readonly BatchCommand[],
  context: BatchContext,
): { results: CommandResult[]; effects: BatchEffects } {
  const effects = emptyEffects();
  const results = commands.map((command) => decideIdempotent(state, command, context, effects));
  return { results, effects };
}

function decideCommand(
  state: BatchState,
  command: BatchCommand,
  context: BatchContext,
  effects: BatchEffects,
): Outcome<unknown> {
  switch (command.kind) {
    case 'send':
    case 'request_approval':
    case 'x402':
      return decidePayment(state, command, context, effects);
    case 'fund':
    case 'withdraw':
      return decideMove(state, command, context, effects);
    case 'deposit':
      return decideDeposit(state, command, context, effects);
    case 'master_withdrawal':
      return decideMasterWithdrawal(state, command, context, effects);
    case 'approve':
    case 'reject':
    case 'expire':
      return decideResolve(state, command, context, effects);
  }
}

/** Replays a stored outcome, refuses a reused key, or decides and stores the outcome under the key. */
function decideIdempotent(
  state: BatchState,
  command: BatchCommand,
  context: BatchContext,
  effects: BatchEffects,
): CommandResult {
  const claim = command.idempotency;
  if (claim !== null) {
    const stored = state.keys.get(keyOf(claim.scope, claim.key));
    const live = stored !== undefined && keyIsLive(stored.createdAtMs, command.nowMs);
    if (live && stored.fingerprint !== claim.fingerprint) return { ok: false, error: idempotencyConflict() };
    if (live) return { ok: true, value: { outcome: stored.outcome, replayed: true } };
  }
  let outcome: Outcome<unknown>;
  try {
    outcome = decideCommand(state, command, context, effects);
  } catch (error) {
    // Refused before any effect (frozen, own address, a balance bound): nothing is stored under the key.
    return { ok: false, error };
  }
  if (claim !== null) {
    state.keys.set(keyOf(claim.scope, claim.key), {
      fingerprint: claim.fingerprint,
      outcome,
      createdAtMs: command.nowMs,
    });
    effects.idempotency.push({ ...claim, outcome, nowMs: command.nowMs });
  }
  return { ok: true, value: { outcome, replayed: false } };
}

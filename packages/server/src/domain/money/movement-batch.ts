// The owner's money movements decided in memory against a batch's state: fund (master → agent), withdraw
// (agent → master), and sandbox deposits into the master wallet. Pure: see batch.ts for how a batch runs.
import { notFound } from '../../errors.ts';
import { formatMicros } from '../money.ts';
import { failure, type Outcome, success } from '../outcome.ts';
import { accountIds } from './accounts.ts';
import {
  type BatchContext,
  type BatchEffects,
  type BatchState,
  transfer,
  type WalletState,
} from './batch-state.ts';

export interface MoveCommand {
  kind: 'fund' | 'withdraw';
  userId: string;
  walletId: string;
  amountMicros: bigint;
  idempotency: { scope: string; key: string; fingerprint: string } | null;
  nowMs: number;
}

export interface DepositCommand {
  kind: 'deposit';
  userId: string;
  amountMicros: bigint;
  rail: string;
  idempotency: null;
  nowMs: number;
}

export interface DepositData {
  id: string;
  amountMicros: bigint;
  rail: string;
  nowMs: number;
  /** The master wallet's available balance after the deposit. */
  balanceMicros: bigint;
}

/** Another user's wallet, or a master wallet, is NOT_FOUND: the same answer as a wallet that does not exist. */
function ownedAgent(state: BatchState, userId: string, walletId: string): WalletState {
  const agent = state.wallets.get(walletId);
  if (agent === undefined || agent.userId !== userId || agent.kind !== 'agent')
    throw notFound('agent wallet');
  return agent;
}

/** The user's master wallet among the batch's wallets (loaded for every command that moves its money). */
export function masterOf(state: BatchState, userId: string): WalletState {
  const id = state.masterIdByUser.get(userId);
  const master = id === undefined ? undefined : state.wallets.get(id);
  if (master === undefined) throw notFound('wallet');
  return master;
}

export function decideMove(
  state: BatchState,
  command: MoveCommand,
  context: BatchContext,
  effects: BatchEffects,
): Outcome<unknown> {
  const agent = ownedAgent(state, command.userId, command.walletId);
  const master = masterOf(state, command.userId);
  const [from, to] = command.kind === 'fund' ? [master, agent] : [agent, master];
  if (from.availableMicros < command.amountMicros) {
    const which = command.kind === 'fund' ? 'the master wallet' : 'the agent wallet';
    return failure(
      'INSUFFICIENT_BALANCE',
      `${which} has ${formatMicros(from.availableMicros)} USDC available`,
    );
  }
  transfer(state, context, effects, { kind: command.kind, referenceId: agent.id, nowMs: command.nowMs }, [
    { accountId: accountIds.available(from.id), amountMicros: -command.amountMicros },
    { accountId: accountIds.available(to.id), amountMicros: command.amountMicros },
  ]);
  const record = {
    id: context.newId('tx'),
    walletId: agent.id,
    userId: command.userId,
    type: command.kind,
    status: 'completed' as const,
    amountMicros: command.amountMicros,
    toAddress: to.address,
    counterpartyWalletId: master.id,
    memo: null,
    reason: null,
    rail: 'internal',
    rejectionReason: null,
    violations: null,
    initiatedBy: `user:${command.userId}`,
    idempotencyKey: command.idempotency?.key ?? null,
    expiresAtMs: null,
    relatedTransactionId: null,
    nowMs: command.nowMs,
  };
  effects.records.push(record);
  return success(context.movementData(record, { ...agent }, master.availableMicros));
}

export function decideDeposit(
  state: BatchState,
  command: DepositCommand,
  context: BatchContext,
  effects: BatchEffects,
): Outcome<DepositData> {
  const master = masterOf(state, command.userId);
  const ledgerTransactionId = transfer(
    state,
    context,
    effects,
    { kind: 'deposit', referenceId: master.id, nowMs: command.nowMs },
    [
      { accountId: accountIds.external(command.rail), amountMicros: -command.amountMicros },
      { accountId: accountIds.available(master.id), amountMicros: command.amountMicros },
    ],
  );
  const id = context.newId('dep');
  effects.deposits.push({
    id,
    walletId: master.id,
    userId: command.userId,
    amountMicros: command.amountMicros,
    rail: command.rail,
    ledgerTransactionId,
    nowMs: command.nowMs,
  });
  return success({
    id,
    amountMicros: command.amountMicros,
    rail: command.rail,
    nowMs: command.nowMs,
    balanceMicros: master.availableMicros,
  });
}

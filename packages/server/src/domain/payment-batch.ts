// Agent payments decided a batch at a time, in memory, as pure functions: given the state a batch loaded (the
// wallets it touches with their balances, spent totals, active policies, and the idempotency keys it names),
// each command is decided in arrival order — later commands see earlier ones' effects — and every effect is
// collected for the store to write with a few multi-row statements. Nothing here reads or writes a database,
// so the decisions are tested fast and by property: a batch decided at once equals its commands decided one by
// one. The database constraints stay the second half of each assertion (a guarded balance update that must
// match every account, a check that no balance is negative).
import { AppError, assert, invalid, notFound } from '../errors.ts';
import { accountIds, BALANCE_MAX_MICROS, BalanceLimitError, keepsRunningBalance } from '../ledger/ledger.ts';
import { IDEMPOTENCY_WINDOW_MS } from '../services/idempotency.ts';
import { toChecksumAddress } from './address.ts';
import { formatMicros } from './money.ts';
import { failure, type Outcome, success } from './outcome.ts';
import { type ActivePolicy, approvalReason, evaluatePolicies, type Violation } from './policies.ts';

export interface PaymentCommand {
  kind: 'send' | 'request_approval';
  keyId: string;
  walletId: string;
  /** Lower-case address. */
  toAddress: string;
  amountMicros: bigint;
  memo: string | null;
  reason: string | null;
  idempotency: { scope: string; key: string; fingerprint: string } | null;
  nowMs: number;
}

export interface WalletState {
  id: string;
  userId: string;
  kind: 'agent' | 'master';
  address: string;
  frozen: boolean;
  availableMicros: bigint;
  heldMicros: bigint;
  /** Payments completed, processing or pending: what a total cap counts. */
  spentMicros: bigint;
  /** The same in the last 24 hours before the batch's first command (only for wallets with a daily cap). */
  spent24hMicros: bigint;
  policies: ActivePolicy[];
}

export interface StoredKey {
  fingerprint: string;
  outcome: Outcome<unknown>;
  createdAtMs: number;
}

export interface BatchState {
  wallets: Map<string, WalletState>;
  /** Lower-case address → wallet id, for every wallet of this service a command pays. */
  walletIdByAddress: Map<string, string>;
  /** `scope \n key` → the stored outcome. */
  keys: Map<string, StoredKey>;
}

export interface BatchContext {
  railName: string;
  approvalTtlMs: number;
  newId: (prefix: 'tx' | 'ltx' | 'dep') => string;
}

export interface RecordSpec {
  id: string;
  walletId: string;
  userId: string;
  type: 'payment' | 'incoming';
  status: 'completed' | 'pending' | 'rejected';
  amountMicros: bigint;
  toAddress: string;
  counterpartyWalletId: string | null;
  memo: string | null;
  reason: string | null;
  rail: string;
  rejectionReason: string | null;
  violations: Violation[] | null;
  initiatedBy: string;
  idempotencyKey: string | null;
  expiresAtMs: number | null;
  relatedTransactionId: string | null;
  nowMs: number;
}

export interface BatchEffects {
  ledgerTransactions: Array<{ id: string; kind: string; referenceId: string; nowMs: number }>;
  entries: Array<{
    transactionId: string;
    leg: number;
    accountId: string;
    amountMicros: bigint;
    nowMs: number;
  }>;
  /** Net change per account with a running balance. */
  balanceDeltas: Map<string, bigint>;
  records: RecordSpec[];
  deposits: Array<{
    id: string;
    walletId: string;
    userId: string;
    amountMicros: bigint;
    ledgerTransactionId: string;
    nowMs: number;
  }>;
  idempotency: Array<{
    scope: string;
    key: string;
    fingerprint: string;
    outcome: Outcome<unknown>;
    nowMs: number;
  }>;
}

export type CommandResult =
  | { ok: true; value: { outcome: Outcome<unknown>; replayed: boolean } }
  | { ok: false; error: unknown };

export function emptyEffects(): BatchEffects {
  return {
    ledgerTransactions: [],
    entries: [],
    balanceDeltas: new Map(),
    records: [],
    deposits: [],
    idempotency: [],
  };
}

export const keyOf = (scope: string, key: string) => `${scope}\n${key}`;

/** Decides every command in order against `state` (which it updates) and collects the effects. */
export function decidePayments(
  state: BatchState,
  commands: readonly PaymentCommand[],
  context: BatchContext,
): { results: CommandResult[]; effects: BatchEffects } {
  const effects = emptyEffects();
  const results = commands.map((command) => decideIdempotent(state, command, context, effects));
  return { results, effects };
}

/** Replays a stored outcome, refuses a reused key, or decides and stores the outcome under the key. */
function decideIdempotent(
  state: BatchState,
  command: PaymentCommand,
  context: BatchContext,
  effects: BatchEffects,
): CommandResult {
  const claim = command.idempotency;
  if (claim !== null) {
    const stored = state.keys.get(keyOf(claim.scope, claim.key));
    const live = stored !== undefined && stored.createdAtMs > command.nowMs - IDEMPOTENCY_WINDOW_MS;
    if (live && stored.fingerprint !== claim.fingerprint) {
      const error = new AppError(
        'IDEMPOTENCY_CONFLICT',
        'this idempotency key was already used with different parameters',
      );
      return { ok: false, error };
    }
    if (live) return { ok: true, value: { outcome: stored.outcome, replayed: true } };
  }
  let outcome: Outcome<unknown>;
  try {
    outcome = decideOne(state, command, context, effects);
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

function decideOne(state: BatchState, command: PaymentCommand, context: BatchContext, effects: BatchEffects) {
  const wallet = state.wallets.get(command.walletId);
  if (wallet === undefined) throw notFound('wallet');
  if (wallet.frozen)
    throw new AppError('WALLET_FROZEN', 'this agent wallet is frozen by its owner; payments are refused');
  if (wallet.address === command.toAddress) throw invalid('toAddress is this wallet’s own address');
  const decision = evaluatePolicies(wallet.policies, command, {
    last24hMicros: wallet.spent24hMicros,
    allTimeMicros: wallet.spentMicros,
  });
  if (command.kind === 'request_approval') {
    if (wallet.availableMicros < command.amountMicros) return insufficient(wallet.availableMicros);
    const txId = hold(state, wallet, command, context, effects, {
      reason: command.reason,
      violations: decision.violations,
    });
    return success({
      txId,
      status: 'pending',
      message: 'the payment is held and awaits the wallet owner’s approval',
    });
  }
  if (decision.violations.length > 0)
    return deny(state, wallet, command, context, effects, decision.violations);
  if (wallet.availableMicros < command.amountMicros) return insufficient(wallet.availableMicros);
  if (decision.approvalRequiredBy.length > 0) {
    const reason = approvalReason(decision.approvalRequiredBy);
    const txId = hold(state, wallet, command, context, effects, { reason, violations: [] });
    return success(sendData(txId, 'pending', command));
  }
  return settleNow(state, wallet, command, context, effects);
}

function deny(
  state: BatchState,
  wallet: WalletState,
  command: PaymentCommand,
  context: BatchContext,
  effects: BatchEffects,
  violations: Violation[],
): Outcome<unknown> {
  const reason = violations.map((v) => v.reason).join('; ');
  const txId = context.newId('tx');
  effects.records.push({
    ...paymentRecord(wallet, command, txId, railFor(state, context, command.toAddress)),
    status: 'rejected',
    rejectionReason: reason,
    violations,
  });
  const count = violations.length === 1 ? 'a policy' : `${violations.length} policies`;
  return failure('POLICY_DENIED', `payment denied by ${count}: ${reason}`, {
    details: { violations },
    data: { txId, status: 'rejected' },
  });
}

/** Moves the amount into the wallet's hold account and records a pending payment that expires. */
function hold(
  state: BatchState,
  wallet: WalletState,
  command: PaymentCommand,
  context: BatchContext,
  effects: BatchEffects,
  why: { reason: string | null; violations: Violation[] },
): string {
  const txId = context.newId('tx');
  transfer(state, context, effects, { kind: 'hold', referenceId: txId, nowMs: command.nowMs }, [
    { accountId: accountIds.available(wallet.id), amountMicros: -command.amountMicros },
    { accountId: accountIds.hold(wallet.id), amountMicros: command.amountMicros },
  ]);
  effects.records.push({
    ...paymentRecord(wallet, command, txId, railFor(state, context, command.toAddress)),
    status: 'pending',
    reason: why.reason,
    violations: why.violations.length === 0 ? null : why.violations,
    expiresAtMs: command.nowMs + context.approvalTtlMs,
  });
  spend(wallet, command.amountMicros);
  return txId;
}

/** An address of this service settles on the internal ledger; any other goes out through the rail. */
function settleNow(
  state: BatchState,
  wallet: WalletState,
  command: PaymentCommand,
  context: BatchContext,
  effects: BatchEffects,
): Outcome<unknown> {
  const txId = context.newId('tx');
  const recipientId = state.walletIdByAddress.get(command.toAddress);
  const recipient = recipientId === undefined ? undefined : state.wallets.get(recipientId);
  const toAccount =
    recipient === undefined ? accountIds.external(context.railName) : accountIds.available(recipient.id);
  const kind = recipient === undefined ? 'payment_external' : 'payment_internal';
  const ledgerId = transfer(state, context, effects, { kind, referenceId: txId, nowMs: command.nowMs }, [
    { accountId: accountIds.available(wallet.id), amountMicros: -command.amountMicros },
    { accountId: toAccount, amountMicros: command.amountMicros },
  ]);
  if (recipient !== undefined)
    creditRecipient(wallet, recipient, command, { txId, ledgerId }, context, effects);
  effects.records.push({
    ...paymentRecord(wallet, command, txId, recipient === undefined ? context.railName : 'internal'),
    status: 'completed',
  });
  spend(wallet, command.amountMicros);
  return success(sendData(txId, 'completed', command));
}

/** The receiving side's record: an `incoming` transaction on an agent wallet, a deposit on a master wallet. */
function creditRecipient(
  payer: WalletState,
  recipient: WalletState,
  command: PaymentCommand,
  ids: { txId: string; ledgerId: string },
  context: BatchContext,
  effects: BatchEffects,
): void {
  const base = {
    walletId: recipient.id,
    userId: recipient.userId,
    amountMicros: command.amountMicros,
    nowMs: command.nowMs,
  };
  if (recipient.kind === 'master') {
    effects.deposits.push({ ...base, id: context.newId('dep'), ledgerTransactionId: ids.ledgerId });
    return;
  }
  effects.records.push({
    ...base,
    id: context.newId('tx'),
    type: 'incoming',
    status: 'completed',
    toAddress: recipient.address,
    counterpartyWalletId: payer.id,
    memo: command.memo,
    reason: null,
    rail: 'internal',
    rejectionReason: null,
    violations: null,
    initiatedBy: `key:${command.keyId}`,
    idempotencyKey: null,
    expiresAtMs: null,
    relatedTransactionId: ids.txId,
  });
}

interface Leg {
  accountId: string;
  amountMicros: bigint;
}

/**
 * One balanced ledger transaction: refused (thrown, before any effect) when a debit would overdraw or a credit
 * pass the balance bound; otherwise its entries, in account-id order, and the balance changes are collected and
 * the in-memory balances move.
 */
function transfer(
  state: BatchState,
  context: BatchContext,
  effects: BatchEffects,
  spec: { kind: string; referenceId: string; nowMs: number },
  legs: Leg[],
): string {
  assert(legs.reduce((sum, leg) => sum + leg.amountMicros, 0n) === 0n, 'a transfer sums to zero');
  const ordered = [...legs].sort((a, b) => (a.accountId < b.accountId ? -1 : 1));
  const tracked = ordered.filter((leg) => keepsRunningBalance(leg.accountId));
  for (const leg of tracked) checkLeg(state, leg);
  const id = context.newId('ltx');
  effects.ledgerTransactions.push({ id, ...spec });
  for (const [index, leg] of ordered.entries()) {
    effects.entries.push({
      transactionId: id,
      leg: index,
      accountId: leg.accountId,
      amountMicros: leg.amountMicros,
      nowMs: spec.nowMs,
    });
  }
  for (const leg of tracked) {
    effects.balanceDeltas.set(
      leg.accountId,
      (effects.balanceDeltas.get(leg.accountId) ?? 0n) + leg.amountMicros,
    );
    moveBalance(state, leg);
  }
  return id;
}

function checkLeg(state: BatchState, leg: Leg): void {
  const after = balanceOf(state, leg.accountId) + leg.amountMicros;
  assert(after >= 0n, `${leg.accountId} would go negative`);
  if (after > BALANCE_MAX_MICROS) throw new BalanceLimitError(leg.accountId);
}

function balanceOf(state: BatchState, accountId: string): bigint {
  const [walletId, kind] = accountId.split(':') as [string, string];
  const wallet = state.wallets.get(walletId);
  assert(wallet !== undefined, `account ${accountId} of a wallet the batch did not load`);
  return kind === 'hold' ? wallet.heldMicros : wallet.availableMicros;
}

function moveBalance(state: BatchState, leg: Leg): void {
  const [walletId, kind] = leg.accountId.split(':') as [string, string];
  const wallet = state.wallets.get(walletId)!;
  if (kind === 'hold') wallet.heldMicros += leg.amountMicros;
  else wallet.availableMicros += leg.amountMicros;
}

function spend(wallet: WalletState, amountMicros: bigint): void {
  wallet.spentMicros += amountMicros;
  wallet.spent24hMicros += amountMicros;
}

function railFor(state: BatchState, context: BatchContext, address: string): string {
  return state.walletIdByAddress.has(address) ? 'internal' : context.railName;
}

function paymentRecord(wallet: WalletState, command: PaymentCommand, id: string, rail: string) {
  return {
    id,
    walletId: wallet.id,
    userId: wallet.userId,
    type: 'payment' as const,
    amountMicros: command.amountMicros,
    toAddress: command.toAddress,
    counterpartyWalletId: null,
    memo: command.memo,
    reason: command.reason,
    rail,
    rejectionReason: null,
    violations: null,
    initiatedBy: `key:${command.keyId}`,
    idempotencyKey: command.idempotency?.key ?? null,
    expiresAtMs: null,
    relatedTransactionId: null,
    nowMs: command.nowMs,
  };
}

export interface SendPaymentData {
  txId: string;
  status: string;
  txHash: string | null;
  amount: string;
  /** EIP-55 checksummed. */
  toAddress: string;
  rejectionReason: string | null;
}

function sendData(txId: string, status: string, command: PaymentCommand): SendPaymentData {
  return {
    txId,
    status,
    txHash: null,
    amount: formatMicros(command.amountMicros),
    toAddress: toChecksumAddress(command.toAddress),
    rejectionReason: null,
  };
}

function insufficient<T>(availableMicros: bigint): Outcome<T> {
  return failure(
    'INSUFFICIENT_BALANCE',
    `not enough available balance: ${formatMicros(availableMicros)} USDC`,
  );
}

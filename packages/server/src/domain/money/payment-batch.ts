// Agent payments (send_payment, request_approval) decided in memory against a batch's state: frozen wallets and
// payments to the wallet itself are refused, every active policy is evaluated, then the payment is denied (a
// rejected record), held for approval, or settled — on the internal ledger when the recipient is a wallet of
// this service, through the rail otherwise. Pure: see batch.ts for how a batch runs.
import { AppError, invalid, notFound } from '../../errors.ts';
import { toChecksumAddress } from '../address.ts';
import { formatMicros } from '../money.ts';
import { failure, type Outcome, success } from '../outcome.ts';
import {
  approvalReason,
  approvalsRequired,
  evaluatePolicies,
  merchantHostOf,
  trippedBreaker,
  type Violation,
} from '../policies/policies.ts';
import { accountIds } from './accounts.ts';
import {
  type BatchContext,
  type BatchEffects,
  type BatchState,
  type OwnersWait,
  recordInWindows,
  type SignedState,
  signedStateOf,
  transfer,
  type WalletState,
  windowSpending,
  type X402Details,
  type X402Spec,
} from './batch-state.ts';
import { OWNERS_WAIT_REASON } from './treasury-cover.ts';

export interface PaymentCommand {
  kind: 'send' | 'request_approval' | 'x402';
  keyId: string;
  walletId: string;
  /** Lower-case address. */
  toAddress: string;
  amountMicros: bigint;
  memo: string | null;
  reason: string | null;
  idempotency: { scope: string; key: string; fingerprint: string } | null;
  nowMs: number;
  /** Set exactly when kind is 'x402'. */
  x402?: X402Details;
  /** A dry run of a paid request (check_payment): its seller's host, which merchant lists judge. */
  merchantHost?: string | null;
  /** Bounded mode: the treasury cannot pay it without the owners; a payment the policies allow waits for them. */
  owners?: OwnersWait;
}

export function decidePayment(
  state: BatchState,
  command: PaymentCommand,
  context: BatchContext,
  effects: BatchEffects,
): Outcome<unknown> {
  const wallet = state.wallets.get(command.walletId);
  if (wallet === undefined) throw notFound('wallet');
  if (wallet.frozen)
    throw new AppError(
      'WALLET_FROZEN',
      'this agent wallet is frozen; payments are refused until its owner unfreezes it',
    );
  if (wallet.address === command.toAddress) throw invalid('toAddress is this wallet’s own address');
  const outcome = decideActive(state, wallet, command, context, effects);
  if (!outcome.ok && COUNTED_DENIALS.has(outcome.code)) countDenial(wallet, command.nowMs, effects);
  return outcome;
}

/** What an auto_freeze policy counts: payments turned away by a policy or for want of balance. */
const COUNTED_DENIALS: ReadonlySet<string> = new Set(['POLICY_DENIED', 'INSUFFICIENT_BALANCE']);

/**
 * Counts a denial of a wallet with auto_freeze policies and, when one reaches its count, freezes the wallet in
 * this batch: later commands of the batch, and every payment after it, meet WALLET_FROZEN. Decided under the
 * wallet's lock against the denials stored so far, so a burst on several instances trips it once, at the count.
 */
function countDenial(wallet: WalletState, nowMs: number, effects: BatchEffects): void {
  const breakers = wallet.policies.filter((p) => p.rule.type === 'auto_freeze');
  if (breakers.length === 0) return;
  effects.denials.push({ walletId: wallet.id, atMs: nowMs });
  for (const [window, count] of wallet.windows.denials) wallet.windows.denials.set(window, count + 1);
  if (wallet.frozen) return;
  const tripped = trippedBreaker(breakers, wallet.windows.denials);
  if (tripped === null) return;
  wallet.frozen = true;
  effects.freezes.push({ walletId: wallet.id, userId: wallet.userId, ...tripped, nowMs });
}

function decideActive(
  state: BatchState,
  wallet: WalletState,
  command: PaymentCommand,
  context: BatchContext,
  effects: BatchEffects,
): Outcome<unknown> {
  const facts =
    command.x402 === undefined
      ? command
      : { ...command, merchantHost: merchantHostOf(command.x402.resource) };
  const decision = evaluatePolicies(wallet.policies, facts, {
    last24hMicros: wallet.spent24hMicros,
    allTimeMicros: wallet.spentMicros,
    windows: windowSpending(wallet.windows),
  });
  if (command.kind === 'request_approval') {
    if (wallet.availableMicros < command.amountMicros) return insufficient(wallet.availableMicros);
    const txId = hold(state, wallet, command, context, effects, {
      reason: command.reason,
      violations: decision.violations,
      approvalsRequired: approvalsRequired(decision.approvalRequiredBy),
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
    const txId = hold(state, wallet, command, context, effects, {
      reason,
      violations: [],
      approvalsRequired: approvalsRequired(decision.approvalRequiredBy),
    });
    return success(sendData(txId, 'pending', command));
  }
  if (command.owners !== undefined)
    return waitForOwners(state, wallet, command, command.owners, effects, context);
  return settleNow(state, wallet, command, context, effects);
}

/**
 * A payment the policies allow but the treasury cannot pay without the owners: held exactly like one awaiting
 * approval (it cannot be spent twice), with the reason in words, and no approval window — it waits for the
 * owners' request written with it, which completes it, makes it payable (x402, MPP) or gives the hold back.
 */
function waitForOwners(
  state: BatchState,
  wallet: WalletState,
  command: PaymentCommand,
  owners: OwnersWait,
  effects: BatchEffects,
  context: BatchContext,
): Outcome<unknown> {
  const txId = hold(state, wallet, command, context, effects, {
    reason: OWNERS_WAIT_REASON,
    violations: [],
    approvalsRequired: 1,
    expiresAtMs: null,
  });
  effects.ownersRequests.push({ transactionId: txId, request: owners.request });
  return success({ ...sendData(txId, 'pending', command), reason: OWNERS_WAIT_REASON });
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
    ...paymentRecord(wallet, command, txId, railFor(state, context, command)),
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
  why: {
    reason: string | null;
    violations: Violation[];
    approvalsRequired: number;
    /** The approval window's end; null: no window (a payment waiting for the owners' signatures). */
    expiresAtMs?: number | null;
  },
): string {
  const txId = context.newId('tx');
  transfer(state, context, effects, { kind: 'hold', referenceId: txId, nowMs: command.nowMs }, [
    { accountId: accountIds.available(wallet.id), amountMicros: -command.amountMicros },
    { accountId: accountIds.hold(wallet.id), amountMicros: command.amountMicros },
  ]);
  effects.records.push({
    ...paymentRecord(wallet, command, txId, railFor(state, context, command)),
    status: 'pending',
    reason: why.reason,
    violations: why.violations.length === 0 ? null : why.violations,
    // One approval is what every payment held before require_approvals needed: stored as null.
    approvalsRequired: why.approvalsRequired > 1 ? why.approvalsRequired : null,
    expiresAtMs: why.expiresAtMs === undefined ? command.nowMs + context.approvalTtlMs : why.expiresAtMs,
  });
  if (command.x402 !== undefined)
    effects.x402.push(x402Row(txId, wallet, command, command.x402, 'awaiting_approval'));
  spend(wallet, command.amountMicros, command.toAddress);
  wallet.pendingCount += 1;
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
  // An x402 seller is paid on chain by the authorization, whoever the address belongs to.
  const recipient = command.x402 === undefined ? recipientOf(state, command.toAddress) : undefined;
  const { status, rail } = payRecipient(state, context, effects, {
    id: txId,
    payer: wallet,
    recipient,
    fromAccountId: accountIds.available(wallet.id),
    amountMicros: command.amountMicros,
    memo: command.memo,
    initiatedBy: `key:${command.keyId}`,
    nowMs: command.nowMs,
  });
  if (command.x402 !== undefined) {
    effects.x402.push(
      x402Row(txId, wallet, command, command.x402, signedStateOf(command.x402.authorization)),
    );
  } else if (status === 'processing') {
    const { walletId, toAddress, amountMicros, nowMs } = command;
    effects.payouts.push({ transactionId: txId, walletId, toAddress, amountMicros, nowMs });
  }
  effects.records.push({ ...paymentRecord(wallet, command, txId, rail), status });
  spend(wallet, command.amountMicros, command.toAddress);
  return success(sendData(txId, status, command));
}

/** The wallet of this service at `address` (lower-case), if the batch loaded one. */
export function recipientOf(state: BatchState, address: string): WalletState | undefined {
  const id = state.walletIdByAddress.get(address);
  return id === undefined ? undefined : state.wallets.get(id);
}

export interface Payment {
  /** The payment's transaction id (the ledger transaction and the recipient's record reference it). */
  id: string;
  payer: WalletState;
  /** A wallet of this service, or undefined: the money leaves through the rail. */
  recipient: WalletState | undefined;
  /** The payer's available account (send_payment) or its hold account (an approval). */
  fromAccountId: string;
  amountMicros: bigint;
  memo: string | null;
  initiatedBy: string;
  nowMs: number;
}

/**
 * Moves a payment's amount to its recipient — a wallet of this service, credited at once with a record of its
 * own, or the rail's account — and says how it stands: `completed` (internal, or a rail that settles at once)
 * or `processing` (the rail pays it later). Shared by send_payment and the owner's approval (approval-batch.ts).
 * The transfer comes first and may refuse (thrown, before any effect).
 */
export function payRecipient(
  state: BatchState,
  context: BatchContext,
  effects: BatchEffects,
  payment: Payment,
): { status: 'completed' | 'processing'; rail: string } {
  const { recipient } = payment;
  const toAccount =
    recipient === undefined ? accountIds.external(context.railName) : accountIds.available(recipient.id);
  const kind = recipient === undefined ? 'payment_external' : 'payment_internal';
  const ledgerId = transfer(
    state,
    context,
    effects,
    { kind, referenceId: payment.id, nowMs: payment.nowMs },
    [
      { accountId: payment.fromAccountId, amountMicros: -payment.amountMicros },
      { accountId: toAccount, amountMicros: payment.amountMicros },
    ],
  );
  if (recipient === undefined) {
    return { status: context.railSettlesAtOnce ? 'completed' : 'processing', rail: context.railName };
  }
  creditRecipient(recipient, payment, ledgerId, context, effects);
  return { status: 'completed', rail: 'internal' };
}

/** The receiving side's record: an `incoming` transaction on an agent wallet, a deposit on a master wallet. */
function creditRecipient(
  recipient: WalletState,
  payment: Payment,
  ledgerId: string,
  context: BatchContext,
  effects: BatchEffects,
): void {
  const base = {
    walletId: recipient.id,
    userId: recipient.userId,
    amountMicros: payment.amountMicros,
    nowMs: payment.nowMs,
  };
  if (recipient.kind === 'master') {
    effects.deposits.push({
      ...base,
      id: context.newId('dep'),
      rail: 'internal',
      ledgerTransactionId: ledgerId,
    });
    return;
  }
  effects.records.push({
    ...base,
    id: context.newId('tx'),
    type: 'incoming',
    status: 'completed',
    toAddress: recipient.address,
    counterpartyWalletId: payment.payer.id,
    memo: payment.memo,
    reason: null,
    rail: 'internal',
    rejectionReason: null,
    violations: null,
    initiatedBy: recipientSideActor(recipient, payment),
    idempotencyKey: null,
    expiresAtMs: null,
    relatedTransactionId: payment.id,
  });
}

/** What the recipient's record names as its initiator when the payer is another account. */
export const ANOTHER_ACCOUNT = 'external';

/**
 * Who the recipient's record says started it: the payer's key or owner when both wallets are the same user's;
 * otherwise only "external". Another customer's key and user ids are theirs, not the recipient's to read (the
 * record, its audit trail and its webhook event all show this value).
 */
function recipientSideActor(recipient: WalletState, payment: Payment): string {
  return recipient.userId === payment.payer.userId ? payment.initiatedBy : ANOTHER_ACCOUNT;
}

function spend(wallet: WalletState, amountMicros: bigint, toAddress: string): void {
  wallet.spentMicros += amountMicros;
  wallet.spent24hMicros += amountMicros;
  recordInWindows(wallet.windows, amountMicros, toAddress);
}

function railFor(state: BatchState, context: BatchContext, command: PaymentCommand): string {
  if (command.x402 !== undefined) return context.railName;
  return state.walletIdByAddress.has(command.toAddress) ? 'internal' : context.railName;
}

/** The x402_payments row of an x402 payment: signed at once when paid, or awaiting the owner. */
function x402Row(
  transactionId: string,
  wallet: WalletState,
  command: PaymentCommand,
  details: X402Details,
  state: SignedState | 'awaiting_approval',
): X402Spec {
  return {
    transactionId,
    walletId: wallet.id,
    state,
    details,
    payTo: command.toAddress,
    amountMicros: command.amountMicros,
    nowMs: command.nowMs,
  };
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
    resource: command.x402?.resource ?? null,
    paymentMethod: command.x402?.method ?? null,
    nowMs: command.nowMs,
  };
}

export interface RequestApprovalData {
  txId: string;
  status: 'pending';
  message: string;
}

export interface SendPaymentData {
  txId: string;
  status: string;
  txHash: string | null;
  amount: string;
  /** EIP-55 checksummed. */
  toAddress: string;
  rejectionReason: string | null;
  /** Why a payment that is not an approval's waits (the owners' signatures), in words. */
  reason?: string;
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

export function insufficient<T>(availableMicros: bigint): Outcome<T> {
  return failure(
    'INSUFFICIENT_BALANCE',
    `not enough available balance: ${formatMicros(availableMicros)} USDC`,
  );
}

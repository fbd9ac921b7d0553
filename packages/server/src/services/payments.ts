// Agent payments and the human-approval flow. Each request is one operation of the ledger writer, so its
// checks (frozen, policies, balance) and its effects (records, ledger entries, idempotency outcome) commit
// together or not at all, with the wallet's row lock held from the first check to the commit.
import type { Kysely } from 'kysely';
import { toChecksumAddress } from '../domain/address.ts';
import { newId } from '../domain/ids.ts';
import { formatMicros } from '../domain/money.ts';
import { failure, type Outcome, success } from '../domain/outcome.ts';
import { approvalReason, evaluatePolicies, totalsNeeded, type Violation } from '../domain/policies.ts';
import { AppError, invalid } from '../errors.ts';
import { accountIds, postTransfer, readBalances } from '../ledger/ledger.ts';
import type { Database } from '../store/schema.ts';
import type { ServiceContext } from './context.ts';
import { type IdempotencyRequest, runIdempotent } from './idempotency.ts';
import { activePolicies, spendTotals } from './policies.ts';
import { type ExternalRail, railFor, settle } from './settlement.ts';
import { insertTransaction } from './transactions.ts';
import { lockWallet, type WalletRow } from './wallet-rows.ts';

/** The API key a tool call arrived with: it decides the wallet, never a parameter. */
export interface AgentKeyRef {
  id: string;
  walletId: string;
  userId: string;
}

export interface PaymentRequest {
  key: AgentKeyRef;
  /** Lower-case address. */
  toAddress: string;
  amountMicros: bigint;
  memo: string | null;
  reason: string | null;
  idempotency: IdempotencyRequest | null;
}

export interface SendPaymentData {
  txId: string;
  status: string;
  txHash: string | null;
  amount: string;
  toAddress: string;
  rejectionReason: string | null;
  violations?: Violation[];
}

export interface RequestApprovalData {
  txId: string;
  status: 'pending';
  message: string;
}

export interface PaymentOptions {
  rail: ExternalRail;
  approvalTtlMs: number;
}

export interface PaymentService {
  sendPayment(request: PaymentRequest): Promise<Outcome<SendPaymentData>>;
  requestApproval(request: PaymentRequest): Promise<Outcome<RequestApprovalData>>;
}

export function createPaymentService(ctx: ServiceContext, options: PaymentOptions): PaymentService {
  const { writer, clock } = ctx;
  function execute<T>(
    request: PaymentRequest,
    body: (trx: Kysely<Database>, nowMs: number) => Promise<Outcome<T>>,
  ) {
    const nowMs = clock.nowMs();
    return writer
      .run((trx) => runIdempotent(trx, request.idempotency, nowMs, () => body(trx, nowMs)), {
        wallets: [request.key.walletId],
        addresses: [request.toAddress],
      })
      .then((result) => result.outcome);
  }
  return {
    sendPayment: (request) => execute(request, (trx, nowMs) => executeSend(trx, request, options, nowMs)),
    requestApproval: (request) =>
      execute(request, (trx, nowMs) => executeRequestApproval(trx, request, options, nowMs)),
  };
}

/**
 * Locks the key's wallet for this transaction and refuses what must not execute at all (no outcome is stored
 * for these: the thrown error rolls the idempotency claim back too).
 */
async function lockForAgentWrite(trx: Kysely<Database>, request: PaymentRequest): Promise<WalletRow> {
  const wallet = await lockWallet(trx, request.key.walletId);
  if (wallet.frozen_at_ms !== null) {
    throw new AppError('WALLET_FROZEN', 'this agent wallet is frozen by its owner; payments are refused');
  }
  if (wallet.address === request.toAddress) throw invalid('toAddress is this wallet’s own address');
  return wallet;
}

/** Locks the wallet and evaluates every active policy against the payment. */
async function assess(trx: Kysely<Database>, request: PaymentRequest, nowMs: number) {
  const wallet = await lockForAgentWrite(trx, request);
  const policies = await activePolicies(trx, wallet.id);
  const totals = await spendTotals(trx, wallet.id, nowMs, totalsNeeded(policies));
  return { wallet, decision: evaluatePolicies(policies, request, totals) };
}

async function executeSend(
  trx: Kysely<Database>,
  request: PaymentRequest,
  options: PaymentOptions,
  nowMs: number,
): Promise<Outcome<SendPaymentData>> {
  const { wallet, decision } = await assess(trx, request, nowMs);
  if (decision.violations.length > 0) return deny(trx, wallet, request, options, decision.violations, nowMs);
  const { availableMicros } = await readBalances(trx, wallet.id);
  if (availableMicros < request.amountMicros) return insufficient(availableMicros);
  if (decision.approvalRequiredBy.length > 0) {
    const held = { ...request, reason: approvalReason(decision.approvalRequiredBy) };
    const txId = await hold(trx, wallet, held, options, [], nowMs);
    return success(sendData(txId, 'pending', null, request, null));
  }
  return settleNow(trx, wallet, request, options, nowMs);
}

async function settleNow(
  trx: Kysely<Database>,
  wallet: WalletRow,
  request: PaymentRequest,
  options: PaymentOptions,
  nowMs: number,
): Promise<Outcome<SendPaymentData>> {
  const paymentId = newId('tx');
  const settled = await settle(trx, options.rail, {
    paymentId,
    wallet,
    fromAccountId: accountIds.available(wallet.id),
    toAddress: request.toAddress,
    amountMicros: request.amountMicros,
    memo: request.memo,
    initiatedBy: `key:${request.key.id}`,
    nowMs,
  });
  await insertTransaction(trx, {
    ...paymentRecord(wallet, request, nowMs),
    id: paymentId,
    status: settled.status,
    rail: settled.rail,
    rejectionReason: settled.failureReason,
  });
  if (settled.status === 'failed') {
    return failure(
      'TX_EXECUTION_FAILED',
      `settlement failed: ${settled.failureReason}; the funds were returned`,
      {
        data: { txId: paymentId, status: 'failed' },
      },
    );
  }
  return success(sendData(paymentId, settled.status, settled.txHash, request, null));
}

async function executeRequestApproval(
  trx: Kysely<Database>,
  request: PaymentRequest,
  options: PaymentOptions,
  nowMs: number,
): Promise<Outcome<RequestApprovalData>> {
  // Not a gate: the policies this payment would break are listed on it for the human who decides.
  const { wallet, decision } = await assess(trx, request, nowMs);
  const { availableMicros } = await readBalances(trx, wallet.id);
  if (availableMicros < request.amountMicros) return insufficient(availableMicros);
  const txId = await hold(trx, wallet, request, options, decision.violations, nowMs);
  return success({
    txId,
    status: 'pending',
    message: 'the payment is held and awaits the wallet owner’s approval',
  });
}

async function deny(
  trx: Kysely<Database>,
  wallet: WalletRow,
  request: PaymentRequest,
  options: PaymentOptions,
  violations: Violation[],
  nowMs: number,
): Promise<Outcome<SendPaymentData>> {
  const reason = violations.map((v) => v.reason).join('; ');
  const row = await insertTransaction(trx, {
    ...paymentRecord(wallet, request, nowMs),
    status: 'rejected',
    rail: await railFor(trx, options.rail, request.toAddress),
    rejectionReason: reason,
    violations,
  });
  const count = violations.length === 1 ? 'a policy' : `${violations.length} policies`;
  return failure('POLICY_DENIED', `payment denied by ${count}: ${reason}`, {
    details: { violations },
    data: { txId: row.id, status: 'rejected' },
  });
}

/** Moves the amount into the wallet's hold account and records a pending payment that expires. */
async function hold(
  trx: Kysely<Database>,
  wallet: WalletRow,
  request: PaymentRequest,
  options: PaymentOptions,
  violations: Violation[],
  nowMs: number,
): Promise<string> {
  const paymentId = newId('tx');
  await postTransfer(trx, {
    kind: 'hold',
    referenceId: paymentId,
    nowMs,
    legs: [
      { accountId: accountIds.available(wallet.id), amountMicros: -request.amountMicros },
      { accountId: accountIds.hold(wallet.id), amountMicros: request.amountMicros },
    ],
  });
  await insertTransaction(trx, {
    ...paymentRecord(wallet, request, nowMs),
    id: paymentId,
    status: 'pending',
    rail: await railFor(trx, options.rail, request.toAddress),
    violations: violations.length === 0 ? null : violations,
    expiresAtMs: nowMs + options.approvalTtlMs,
  });
  return paymentId;
}

function paymentRecord(wallet: WalletRow, request: PaymentRequest, nowMs: number) {
  return {
    walletId: wallet.id,
    userId: wallet.user_id,
    type: 'payment' as const,
    amountMicros: request.amountMicros,
    toAddress: request.toAddress,
    counterpartyWalletId: null,
    memo: request.memo,
    reason: request.reason,
    rail: null as string | null,
    rejectionReason: null as string | null,
    violations: null as Violation[] | null,
    initiatedBy: `key:${request.key.id}`,
    idempotencyKey: request.idempotency?.key ?? null,
    expiresAtMs: null as number | null,
    relatedTransactionId: null,
    nowMs,
  };
}

function sendData(
  txId: string,
  status: string,
  txHash: string | null,
  request: PaymentRequest,
  rejectionReason: string | null,
): SendPaymentData {
  return {
    txId,
    status,
    txHash,
    amount: formatMicros(request.amountMicros),
    toAddress: toChecksumAddress(request.toAddress),
    rejectionReason,
  };
}

function insufficient<T>(availableMicros: bigint): Outcome<T> {
  return failure(
    'INSUFFICIENT_BALANCE',
    `not enough available balance: ${formatMicros(availableMicros)} USDC`,
  );
}

// check_payment and the owner's policy simulation: what send_payment would decide now, with every violation and
// the room left under the caps — decided by send_payment's own decider on a snapshot (money-batch.ts
// previewPayment), so the two cannot disagree. Nothing is stored, nothing held, no idempotency key claimed.

import { accountIds } from '../../domain/money/accounts.ts';
import { windowSpending } from '../../domain/money/batch-state.ts';
import type { PaymentCommand } from '../../domain/money/payment-batch.ts';
import { formatMicros } from '../../domain/money.ts';
import { capsRemaining, periodCapRemaining, type Violation } from '../../domain/policies/policies.ts';
import { AppError } from '../../errors.ts';
import type { Store } from '../../store/db.ts';
import { periodCapView } from '../wallets/balance-view.ts';
import { type MoneyBatchOptions, previewPayment } from './batch.ts';

export interface CheckPaymentData {
  allowed: boolean;
  requiresApproval: boolean;
  violations: Violation[];
  /** The available balance after the payment (or now, when it would not go through). */
  balanceAfter: string;
  dailyCapRemaining: string | null;
  totalCapRemaining: string | null;
  /** The tightest calendar budget's room before this payment and when it resets: only when the wallet has one. */
  periodCapRemaining?: string;
  periodCapResetsAt?: string;
  /** Why a payment with no violation still would not go through: a frozen wallet or too little balance. */
  refusal: { code: 'WALLET_FROZEN' | 'INSUFFICIENT_BALANCE'; message: string } | null;
}

export interface CheckRequest {
  walletId: string;
  /** The API key asking, or the owner (`user:<id>`) simulating. */
  actor: string;
  toAddress: string;
  amountMicros: bigint;
  /** A paid request's seller (merchant lists judge it); absent for any other payment. */
  merchantHost?: string | null;
  nowMs: number;
}

export async function checkPayment(
  store: Store,
  options: MoneyBatchOptions,
  request: CheckRequest,
): Promise<CheckPaymentData> {
  const command: PaymentCommand = {
    kind: 'send',
    keyId: request.actor,
    walletId: request.walletId,
    toAddress: request.toAddress,
    amountMicros: request.amountMicros,
    memo: null,
    reason: null,
    idempotency: null,
    nowMs: request.nowMs,
    ...(request.merchantHost === undefined ? {} : { merchantHost: request.merchantHost }),
  };
  try {
    const { outcome, before, after, periodsBefore } = await previewPayment(store.db, command, options);
    const caps = capsRemaining(before.policies, {
      last24hMicros: before.spent24hMicros,
      allTimeMicros: before.spentMicros,
    });
    const spentBefore = windowSpending({ ...before.windows, periods: periodsBefore });
    const period = periodCapRemaining(before.policies, request.nowMs, spentBefore.spentInPeriodMicros);
    const common = {
      ...(period === null ? {} : periodCapView(period)),
      balanceAfter: formatMicros(after.availableMicros),
      dailyCapRemaining: caps.dailyCapRemaining === null ? null : formatMicros(caps.dailyCapRemaining),
      totalCapRemaining: caps.totalCapRemaining === null ? null : formatMicros(caps.totalCapRemaining),
    };
    if (outcome.ok) {
      const pending = (outcome.data as { status: string }).status === 'pending';
      return { ...common, allowed: true, requiresApproval: pending, violations: [], refusal: null };
    }
    const violations = (outcome.details?.violations as Violation[] | undefined) ?? [];
    const refusal =
      outcome.code === 'INSUFFICIENT_BALANCE' ? { code: outcome.code, message: outcome.message } : null;
    return { ...common, allowed: false, requiresApproval: false, violations, refusal };
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'WALLET_FROZEN') throw error;
    return frozenAnswer(store, request, error.message);
  }
}

async function frozenAnswer(store: Store, request: CheckRequest, message: string): Promise<CheckPaymentData> {
  const account = await store.db
    .selectFrom('accounts')
    .select('balance_micros')
    .where('id', '=', accountIds.available(request.walletId))
    .executeTakeFirst();
  return {
    allowed: false,
    requiresApproval: false,
    violations: [],
    balanceAfter: formatMicros(account?.balance_micros ?? 0n),
    dailyCapRemaining: null,
    totalCapRemaining: null,
    refusal: { code: 'WALLET_FROZEN', message },
  };
}

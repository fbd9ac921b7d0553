// Alerts (contract section 10), edge-triggered: `balance_below` fires when a wallet's balance falls below its
// amount and is re-armed when the balance is back at or above it; `cap_used` fires when spending reaches its
// percent of a cap and is re-armed when it is back under (a rolling window moved on) or a calendar period began
// (the key names the period). Decided once per batch against the wallets as the batch leaves them, under their
// locks, so concurrent payments fire an alert once per crossing, never once per payment. `treasury_at_risk` fires
// when what a breach of the server could take (the treasury's `atRisk`, evm rail) rises above its amount and is
// re-armed when it is back at or below: judged where the treasury is read (services/alerts/treasury-alerts.ts),
// not by the batches. Pure.

import type { WalletState } from '../money/batch-state.ts';
import { periodKey } from '../money/batch-state.ts';
import { periodOf } from '../policies/calendar-period.ts';

export const ALERT_TYPES = ['balance_below', 'cap_used', 'treasury_at_risk'] as const;
export type AlertType = (typeof ALERT_TYPES)[number];

export type AlertRule =
  | { type: 'balance_below'; amountMicros: bigint }
  | { type: 'cap_used'; percent: number }
  | { type: 'treasury_at_risk'; amountMicros: bigint };

export interface AlertState {
  id: string;
  userId: string;
  walletId: string;
  rule: AlertRule;
  /** What fired and is not re-armed yet. */
  fired: ReadonlySet<string>;
}

export type AlertFiring =
  | {
      type: 'balance.low';
      alertId: string;
      userId: string;
      walletId: string;
      balanceMicros: bigint;
      thresholdMicros: bigint;
    }
  | {
      type: 'budget.threshold';
      alertId: string;
      userId: string;
      walletId: string;
      policyId: string;
      policyType: string;
      percent: number;
      limitMicros: bigint;
      spentMicros: bigint;
    }
  | {
      type: 'treasury.at_risk';
      alertId: string;
      userId: string;
      walletId: string;
      atRiskMicros: bigint;
      thresholdMicros: bigint;
    };

/** A cap of the wallet with what is spent against it now, and the key its alert fires under. */
interface CapUse {
  key: string;
  policyId: string;
  policyType: string;
  limitMicros: bigint;
  spentMicros: bigint;
}

/** The spending caps of a wallet and their use, as the batch's state has them (only loaded caps exist). */
export function capUses(wallet: WalletState, nowMs: number): CapUse[] {
  const uses: CapUse[] = [];
  for (const { id, rule } of wallet.policies) {
    const base = { policyId: id, policyType: rule.type };
    if (rule.type === 'spend_cap_daily')
      uses.push({ ...base, key: id, limitMicros: rule.limitMicros, spentMicros: wallet.spent24hMicros });
    if (rule.type === 'spend_cap_total')
      uses.push({ ...base, key: id, limitMicros: rule.limitMicros, spentMicros: wallet.spentMicros });
    if (rule.type === 'spend_cap_window') {
      const spent = wallet.windows.spent.get(rule.window);
      if (spent !== undefined)
        uses.push({ ...base, key: id, limitMicros: rule.limitMicros, spentMicros: spent });
    }
    if (rule.type === 'spend_cap_period') {
      const spent = wallet.windows.periods.get(periodKey(rule.period, rule.timezone));
      const startMs = periodOf(nowMs, rule.period, rule.timezone).startMs;
      if (spent !== undefined)
        uses.push({ ...base, key: `${id}\n${startMs}`, limitMicros: rule.limitMicros, spentMicros: spent });
    }
  }
  return uses;
}

/** Whether `spent` is at least `percent` % of `limit` (integers only: no rounding decides a crossing). */
export function reached(spentMicros: bigint, limitMicros: bigint, percent: number): boolean {
  return spentMicros * 100n >= limitMicros * BigInt(percent);
}

/**
 * What one alert does as the batch leaves its wallet: the firings (at most one per crossing) and the keys that are
 * fired afterwards. A key no longer in use (a period that ended, a deleted cap) is dropped, so it re-arms.
 */
export function evaluateAlert(
  alert: AlertState,
  wallet: WalletState,
  nowMs: number,
): { firings: AlertFiring[]; fired: Set<string> } {
  const base = { alertId: alert.id, userId: alert.userId, walletId: alert.walletId };
  // Not a wallet's: judged where the treasury is read (evaluateTreasuryAlert); a batch leaves it as it is.
  if (alert.rule.type === 'treasury_at_risk') return { firings: [], fired: new Set(alert.fired) };
  if (alert.rule.type === 'balance_below') {
    const below = wallet.availableMicros < alert.rule.amountMicros;
    const was = alert.fired.has('balance');
    const firings: AlertFiring[] =
      below && !was
        ? [
            {
              type: 'balance.low',
              ...base,
              balanceMicros: wallet.availableMicros,
              thresholdMicros: alert.rule.amountMicros,
            },
          ]
        : [];
    return { firings, fired: below ? new Set(['balance']) : new Set() };
  }
  const firings: AlertFiring[] = [];
  const fired = new Set<string>();
  for (const use of capUses(wallet, nowMs)) {
    if (!reached(use.spentMicros, use.limitMicros, alert.rule.percent)) continue;
    fired.add(use.key);
    if (alert.fired.has(use.key)) continue;
    const { key: _, ...cap } = use;
    firings.push({ type: 'budget.threshold', ...base, ...cap, percent: alert.rule.percent });
  }
  return { firings, fired };
}

/**
 * What a `treasury_at_risk` alert does at a reading of the treasury: fires once when `atRisk` is above its amount
 * and it was not (one firing per crossing, however many readings follow), and is re-armed at or below it.
 */
export function evaluateTreasuryAlert(
  alert: AlertState,
  atRiskMicros: bigint,
): { firings: AlertFiring[]; fired: Set<string> } {
  if (alert.rule.type !== 'treasury_at_risk') return { firings: [], fired: new Set(alert.fired) };
  const above = atRiskMicros > alert.rule.amountMicros;
  const firings: AlertFiring[] =
    above && !alert.fired.has(TREASURY_KEY)
      ? [
          {
            type: 'treasury.at_risk',
            alertId: alert.id,
            userId: alert.userId,
            walletId: alert.walletId,
            atRiskMicros,
            thresholdMicros: alert.rule.amountMicros,
          },
        ]
      : [];
  return { firings, fired: above ? new Set([TREASURY_KEY]) : new Set() };
}

const TREASURY_KEY = 'treasury';

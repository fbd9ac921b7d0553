// The alerts of a batch's wallets as the batch leaves them (domain/alerts.ts judges them): what fires becomes a
// webhook event (and email), and a changed set of fired alerts one update each (rare next to payments).
import type { Kysely } from 'kysely';
import { type AlertFiring, type AlertState, evaluateAlert } from '../../domain/alerts/alerts.ts';
import type { BatchState } from '../../domain/money/batch-state.ts';
import { formatMicros } from '../../domain/money.ts';
import type { Database } from '../../store/schema.ts';
import type { WriteStep } from '../../store/write-plan.ts';
import type { NewEvent } from '../webhooks/webhook-events.ts';

export interface LoadedAlerts {
  list: AlertState[];
  /** Agent wallets whose policies and spending the batch loaded: their cap alerts can be judged. */
  capsLoaded: ReadonlySet<string>;
}

/**
 * The alerts of the batch's wallets as the batch leaves them: balance alerts of every wallet it loaded, cap
 * alerts of the agent wallets whose policies and spending it loaded (`loaded`); what fires, and what changed.
 */
export function alertChanges(state: BatchState, alerts: LoadedAlerts, nowMs: number) {
  const firings: AlertFiring[] = [];
  const updates: Array<{ id: string; fired: string[] }> = [];
  for (const alert of alerts.list) {
    const wallet = state.wallets.get(alert.walletId);
    if (wallet === undefined) continue;
    if (alert.rule.type === 'cap_used' && !alerts.capsLoaded.has(wallet.id)) continue;
    const next = evaluateAlert(alert, wallet, nowMs);
    firings.push(...next.firings);
    const same = next.fired.size === alert.fired.size && [...next.fired].every((k) => alert.fired.has(k));
    if (!same) updates.push({ id: alert.id, fired: [...next.fired].sort() });
  }
  return { firings, updates };
}

export function alertSteps(
  trx: Kysely<Database>,
  updates: ReadonlyArray<{ id: string; fired: string[] }>,
): WriteStep[] {
  return updates.map((u) => ({
    what: `alert ${u.id}`,
    query: trx
      .updateTable('alerts')
      .set({ fired_json: JSON.stringify(u.fired) })
      .where('id', '=', u.id)
      .compile(),
  }));
}

/** An alert's firing as the webhook event (and email) it is. */
export function alertEvent(firing: AlertFiring, nowMs: number): NewEvent {
  const at = { alertId: firing.alertId, walletId: firing.walletId };
  if (firing.type === 'balance.low') {
    return {
      userId: firing.userId,
      type: 'balance.low',
      data: () => ({
        ...at,
        balance: formatMicros(firing.balanceMicros),
        threshold: formatMicros(firing.thresholdMicros),
      }),
      nowMs,
    };
  }
  if (firing.type === 'treasury.at_risk') {
    return {
      userId: firing.userId,
      type: 'treasury.at_risk',
      data: () => ({
        alertId: firing.alertId,
        atRisk: formatMicros(firing.atRiskMicros),
        threshold: formatMicros(firing.thresholdMicros),
      }),
      nowMs,
    };
  }
  return {
    userId: firing.userId,
    type: 'budget.threshold',
    data: () => ({
      ...at,
      policyId: firing.policyId,
      policyType: firing.policyType,
      percent: firing.percent,
      limit: formatMicros(firing.limitMicros),
      spent: formatMicros(firing.spentMicros),
    }),
    nowMs,
  };
}

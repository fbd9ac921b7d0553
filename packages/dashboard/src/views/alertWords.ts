// Alerts in words (the Alerts card of a wallet): what each watches and its threshold, and the checks of the add
// form. Pure: unit-tested.
import type { Alert, AlertType, NewAlert } from '../api/alerts.ts';
import { checkAmount, formatUsdc } from '../money.ts';

/** The types a wallet's Alerts card offers (a treasury alert watches no wallet). */
export const ALERT_TYPE_WORDS: Record<
  Exclude<AlertType, 'treasury_at_risk'>,
  { name: string; option: string }
> = {
  balance_below: { name: 'Balance below', option: 'The balance falls below an amount' },
  cap_used: { name: 'Cap used', option: 'Spending reaches a share of a cap' },
};
const TREASURY_WORDS = { name: 'Treasury at risk above' };

/** The alert's type in words: "Balance below", "Cap used"; an unknown type as it is. */
export function alertTypeWords(type: string): string {
  if (type === 'treasury_at_risk') return TREASURY_WORDS.name;
  return (ALERT_TYPE_WORDS as Record<string, { name: string } | undefined>)[type]?.name ?? type;
}

/**
 * The alert's threshold in words: "Below 50.00 USDC", "At 80 % of any spending cap" (an unexpected params shape
 * shows as "—").
 */
export function alertThreshold(alert: Pick<Alert, 'type' | 'params'>): string {
  const params = alert.params as { amount?: unknown; percent?: unknown };
  if (alert.type === 'balance_below' && typeof params.amount === 'string')
    return `Below ${formatUsdc(params.amount)}`;
  if (alert.type === 'cap_used' && typeof params.percent === 'number')
    return `At ${params.percent} % of any spending cap`;
  if (alert.type === 'treasury_at_risk' && typeof params.amount === 'string')
    return `Above ${formatUsdc(params.amount)}`;
  return '—';
}

/** What the alert does when it fires, for its row's hint. */
export function alertEffect(type: string): string {
  if (type === 'treasury_at_risk')
    return 'Sends treasury.at_risk (webhook and email) once when what a breach could take rises above; again after it was back below.';
  return type === 'cap_used'
    ? 'Sends budget.threshold (webhook and email) once per cap when spending reaches the share.'
    : 'Sends balance.low (webhook and email) once when the balance falls below; again after it was back above.';
}

/** The message for a percent field, or null: a whole number from 1 to 100. */
export function percentError(text: string): string | null {
  const value = text.trim();
  if (value === '') return 'Enter a percentage.';
  if (!/^[0-9]+$/.test(value)) return 'Enter a whole number, e.g. 80.';
  const percent = Number(value);
  if (percent < 1 || percent > 100) return 'Enter a percentage from 1 to 100.';
  return null;
}

/**
 * The body of a new alert from the form, or the form's error. `walletId` null: the master wallet (a balance
 * alert only).
 */
export function newAlert(
  type: AlertType,
  value: string,
  walletId: string | null,
): { alert: NewAlert; error: null } | { alert: null; error: string } {
  if (type === 'balance_below' || type === 'treasury_at_risk') {
    const check = checkAmount(value);
    if (!check.ok) return { alert: null, error: check.reason };
    const params = { amount: check.value };
    if (type === 'treasury_at_risk') return { alert: { type, params }, error: null };
    return {
      alert: walletId === null ? { type, params } : { type, walletId, params },
      error: null,
    };
  }
  if (walletId === null) return { alert: null, error: 'A cap alert watches an agent wallet.' };
  const error = percentError(value);
  if (error !== null) return { alert: null, error };
  return { alert: { type, walletId, params: { percent: Number(value.trim()) } }, error: null };
}

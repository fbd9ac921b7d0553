// Display helpers for dates and enum values (never for amounts: see money.ts).

export function formatDateTime(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function walletName(label: string | null | undefined): string {
  return label === null || label === undefined || label.trim() === '' ? 'Unnamed wallet' : label;
}

/**
 * Who did something, from the audit trail's actor: "user:<id>" is the owner (you), "key:<id>" an API key,
 * named by its label when the wallet's keys are known.
 */
export function describeActor(actor: string, keyLabels?: ReadonlyMap<string, string>): string {
  if (actor.startsWith('user:')) return 'You';
  if (actor.startsWith('key:')) {
    const id = actor.slice(4);
    const label = keyLabels?.get(id);
    return label === undefined ? `API key ${id}` : `API key “${label}”`;
  }
  if (actor === 'system') return 'The service';
  return actor;
}

export const TX_TYPE_NAMES: Record<string, string> = {
  payment: 'Payment',
  incoming: 'Incoming',
  fund: 'Funding',
  withdraw: 'Withdrawal',
};

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/**
 * A transaction status in words. On the evm rail `processing` is a payment on its way on chain: in flight, not
 * an error and not done yet (it ends `completed` with its hash, or `failed` with the money back).
 */
export function txStatusLabel(status: string, rail: string | null | undefined): string {
  if (status === 'processing') return rail === 'evm' ? 'sending on chain' : 'processing';
  return status.replace(/_/g, ' ');
}

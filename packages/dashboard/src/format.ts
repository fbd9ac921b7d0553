// The dashboard's words for dates, people and counterparties, and how a transaction's amount reads (never the
// arithmetic of amounts: see money.ts). Pure: unit-tested.
import type { Transaction } from '@agent-wallet/sdk';
import { shortAddress } from './address.ts';
import { compareAmounts, formatUsdc } from './money.ts';

/** A moment with seconds, in the person's locale: "12 May 2026, 14:03:27". */
export function formatDateTime(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];

/** "5 minutes ago", "in 2 hours", "now": a hint beside the exact time. */
export function formatRelative(iso: string | null | undefined, now = Date.now()): string {
  const at = iso === null || iso === undefined ? Number.NaN : Date.parse(iso);
  if (Number.isNaN(at)) return '';
  const diff = at - now;
  const words = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  if (Math.abs(diff) < 5000) return 'now';
  for (const [unit, ms] of UNITS) {
    if (Math.abs(diff) >= ms || unit === 'second') return words.format(Math.trunc(diff / ms), unit);
  }
  return '';
}

/** Time left before `iso`: "2 days 3 h left", "3 h 20 min left", "45 min left", "under a minute left". */
export function timeLeft(iso: string | null | undefined, now = Date.now()): string {
  const at = iso === null || iso === undefined ? Number.NaN : Date.parse(iso);
  if (Number.isNaN(at)) return 'No expiry';
  const minutes = Math.floor((at - now) / 60_000);
  if (at <= now) return 'Expired';
  if (minutes < 1) return 'Under a minute left';
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  if (days > 0) return `${plural(days, 'day')}${hours > 0 ? ` ${hours} h` : ''} left`;
  if (hours > 0) return `${hours} h${mins > 0 ? ` ${mins} min` : ''} left`;
  return `${mins} min left`;
}

export function walletName(label: string | null | undefined): string {
  return label === null || label === undefined || label.trim() === '' ? 'Unnamed wallet' : label;
}

/**
 * Who did something, from an audit trail's actor: the owner is "you", an API key goes by its label
 * ("API key ‘research-bot prod’"), the service by what it did ("expired automatically"). Never an id.
 */
export function describeActor(
  actor: string,
  keyLabels?: ReadonlyMap<string, string>,
  status?: string,
): string {
  if (actor.startsWith('user:')) return 'you';
  if (actor.startsWith('key:')) {
    const label = keyLabels?.get(actor.slice(4));
    return label === undefined ? 'an API key of this wallet' : `API key ‘${label}’`;
  }
  if (actor === 'system') return status === 'expired' ? 'expired automatically' : 'the service';
  // An internal payment from another account: the server does not say whose key paid.
  if (actor === 'external') return 'a payer outside your account';
  return 'someone else';
}

/** A sentence starts with a capital: "You", "API key ‘x’", "Expired automatically". */
export function capitalize(text: string): string {
  return text === '' ? text : text[0]!.toUpperCase() + text.slice(1);
}

export const TX_TYPE_NAMES: Record<string, string> = {
  payment: 'Payment',
  incoming: 'Incoming',
  fund: 'Funding',
  withdraw: 'Withdrawal',
  x402: 'API payment',
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
  if (status === 'pending') return 'awaiting approval';
  return status.replace(/_/g, ' ');
}

/** Statuses whose money never left (or came back): shown as not having moved money. */
export const NOT_MOVED = new Set(['rejected', 'failed', 'expired']);

/** Money out of the agent wallet (an agent's payment, a withdrawal) as opposed to into it. */
export function isOutgoing(tx: Pick<Transaction, 'type'>): boolean {
  return tx.type !== 'fund' && tx.type !== 'incoming';
}

export interface AmountView {
  /** "−5.00 USDC", "+100.00 USDC", or "150.00 USDC" for money that did not move. */
  text: string;
  moved: boolean;
  direction: 'in' | 'out' | 'none';
}

/** How a transaction's amount reads: signed when money moved (or is held), unsigned when it did not. */
export function amountView(tx: Pick<Transaction, 'type' | 'status' | 'amount'>): AmountView {
  if (NOT_MOVED.has(tx.status)) return { text: formatUsdc(tx.amount), moved: false, direction: 'none' };
  const out = isOutgoing(tx);
  return { text: `${out ? '−' : '+'}${formatUsdc(tx.amount)}`, moved: true, direction: out ? 'out' : 'in' };
}

/** "api.example.com/v1/report" from "https://api.example.com/v1/report"; null when not a URL. */
export function resourceLabel(resource: string | null | undefined): string | null {
  if (typeof resource !== 'string' || resource.trim() === '') return null;
  try {
    const url = new URL(resource);
    const path = url.pathname === '/' ? '' : url.pathname;
    return `${url.host}${path}`;
  } catch {
    return resource;
  }
}

const PROTOCOL_NAMES: Record<string, string> = { x402: 'x402', mpp: 'MPP' };

/**
 * How a paid request (type x402) paid its seller: "x402 exact", "MPP charge", "x402 upto"; null for any other
 * transaction, or one the server did not say this of. An unknown protocol or scheme is shown as it came.
 */
export function paidWith(tx: Pick<Transaction, 'type' | 'protocol' | 'scheme'>): string | null {
  // What came over the wire, which may be a protocol or scheme newer than the SDK's types.
  const sent: unknown = tx.protocol;
  const scheme: unknown = tx.scheme;
  if (tx.type !== 'x402' || typeof sent !== 'string' || sent.trim() === '') return null;
  const protocol = PROTOCOL_NAMES[sent] ?? sent;
  return typeof scheme === 'string' && scheme.trim() !== '' ? `${protocol} ${scheme}` : protocol;
}

/** A paid request's receipt as the seller sent it, or null when there is none to show. */
export function receiptOf(tx: Pick<Transaction, 'type' | 'receipt'>): string | null {
  return tx.type === 'x402' && typeof tx.receipt === 'string' && tx.receipt.trim() !== '' ? tx.receipt : null;
}

/**
 * What a paid request's authorization allowed when that is not what was paid (only an "upto" scheme allows
 * more); null when it is the amount itself, absent, or not an amount.
 */
export function authorizedBeyond(
  tx: Pick<Transaction, 'type' | 'amount' | 'authorizedAmount'>,
): string | null {
  const authorized = tx.authorizedAmount;
  if (tx.type !== 'x402' || typeof authorized !== 'string') return null;
  try {
    return compareAmounts(authorized, tx.amount) === 0 ? null : authorized;
  } catch {
    return null;
  }
}

/** "eyJzdWNjZXNz…IjoxfQ==": a long receipt (often base64) shortened for a line; the full text stays copyable. */
export function shortReceipt(receipt: string, keep = 24): string {
  const text = receipt.trim();
  if (text.length <= keep + 4) return text;
  return `${text.slice(0, keep - 8)}…${text.slice(-8)}`;
}

export interface Counterparty {
  /** What the table shows: a wallet's label, "Master wallet", an API's host and path, a short address. */
  name: string;
  /** The full address or URL, for a title and the CSV. */
  detail: string | null;
  /** True when the name is one of the person's own wallets. */
  own: boolean;
}

/**
 * Who is on the other side of a transaction. `wallets` maps lower-case addresses of the person's own wallets
 * (agent wallets and the master wallet) to their names.
 */
export function counterpartyOf(
  tx: Pick<Transaction, 'type' | 'toAddress'> & { resource?: string | null },
  wallets: ReadonlyMap<string, string>,
): Counterparty {
  if (tx.type === 'fund') return { name: 'From the master wallet', detail: null, own: true };
  if (tx.type === 'withdraw') return { name: 'To the master wallet', detail: null, own: true };
  if (tx.type === 'x402') {
    const label = resourceLabel(tx.resource);
    if (label !== null) return { name: label, detail: tx.resource ?? null, own: false };
  }
  const address = tx.toAddress;
  if (address === null || address === undefined) {
    return { name: tx.type === 'x402' ? 'An HTTP API' : '—', detail: null, own: false };
  }
  const own = wallets.get(address.toLowerCase());
  if (own !== undefined) return { name: own, detail: address, own: true };
  return { name: shortAddress(address), detail: address, own: false };
}

// CSV export of transactions: an audit file a spreadsheet opens as is. Amounts are the server's exact decimal
// strings with a separate direction column (no sign to misread); every cell is quoted, and text a spreadsheet
// could run as a formula (a memo, a label: anyone who can pay this wallet writes the memo) is defused. Pure
// except downloadText.
import type { Transaction } from '@agent-wallet/sdk';
import { amountView, counterpartyOf, TX_TYPE_NAMES } from './format.ts';

export const CSV_COLUMNS = [
  'created_at',
  'wallet',
  'type',
  'status',
  'direction',
  'amount',
  'currency',
  'counterparty',
  'to_address',
  'resource',
  'memo',
  'reason',
  'tx_hash',
  'transaction_id',
  // Paid requests (type x402) only; empty for every other transaction.
  'protocol',
  'scheme',
  'authorized_amount',
  'receipt',
] as const;

/**
 * One cell, always quoted (RFC 4180: a quote inside is doubled). Text a spreadsheet could run as a formula gets
 * a ' first, so it shows as text: see startsFormula. An exact decimal number (an amount, "-5.000000") is left
 * as it is, so it still reads as a number.
 */
export function csvCell(value: string | number | null | undefined): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (startsFormula(text)) text = `'${text}`;
  return `"${text.replace(/"/g, '""')}"`;
}

const DECIMAL_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;
/**
 * What a spreadsheet may pass over before it looks for "=": spaces of every kind, invisible format and control
 * characters, and the separators ; | , that some of them split on even inside quotes.
 */
const SKIPPED_LEAD = /^[\p{White_Space}\p{Cf}\p{Cc};|,]+/u;
/** = + - @ and the minus sign U+2212 (the full-width and small forms become these under NFKC). */
const FORMULA_CHAR = /^[=+\-@\u2212]/;

/**
 * Whether a spreadsheet could take the cell for a formula: it starts with = + - @ tab or CR, or does once its
 * compatibility forms are folded (NFKC: "＝" is "=") and what a spreadsheet may pass over is skipped (a leading
 * space, NBSP, zero-width character, or ";=1+1"). Generous on purpose: a ' too many only shows.
 */
export function startsFormula(text: string): boolean {
  if (DECIMAL_NUMBER.test(text)) return false;
  if (/^[\t\r]/.test(text)) return true;
  return FORMULA_CHAR.test(text.normalize('NFKC').replace(SKIPPED_LEAD, ''));
}

export interface CsvRow {
  tx: Transaction & { resource?: string | null };
  walletName: string;
}

/** protocol, scheme, authorized_amount and receipt of a paid request, as the server sent them; empty otherwise. */
function paidRequestCells(tx: Transaction): string[] {
  if (tx.type !== 'x402') return ['', '', '', ''];
  return [tx.protocol ?? '', tx.scheme ?? '', tx.authorizedAmount ?? '', tx.receipt ?? ''];
}

/** The rows as CSV (RFC 4180: CRLF line ends, a header line, every cell quoted). */
export function transactionsCsv(rows: readonly CsvRow[], ownWallets: ReadonlyMap<string, string>): string {
  const lines = [CSV_COLUMNS.map(csvCell).join(',')];
  for (const { tx, walletName } of rows) {
    const view = amountView(tx);
    const other = counterpartyOf(tx, ownWallets);
    lines.push(
      [
        tx.createdAt,
        walletName,
        TX_TYPE_NAMES[tx.type] ?? tx.type,
        tx.status,
        view.direction,
        tx.amount,
        tx.currency,
        other.name,
        tx.toAddress,
        tx.resource ?? '',
        tx.memo,
        tx.reason,
        tx.txHash,
        tx.id,
        ...paidRequestCells(tx),
      ]
        .map(csvCell)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** "transactions-research-bot-2026-05-12.csv": safe characters only. */
export function csvFileName(what: string, now = new Date()): string {
  const slug = what
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `transactions-${slug === '' ? 'wallet' : slug}-${now.toISOString().slice(0, 10)}.csv`;
}

/** Saves text as a file through a temporary link (no server round trip; allowed by the CSP). */
export function downloadText(fileName: string, text: string, type = 'text/csv;charset=utf-8') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// CSV export of transactions: an audit file a spreadsheet opens as is. Amounts are the server's exact decimal
// strings with a separate direction column (no sign to misread); text a spreadsheet would run as a formula is
// defused. Pure except downloadText.
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
] as const;

/** One cell: quoted when needed; a leading = + - @ tab or CR (a formula to a spreadsheet) gets a ' first. */
export function csvCell(value: string | number | null | undefined): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export interface CsvRow {
  tx: Transaction & { resource?: string | null };
  walletName: string;
}

/** The rows as CSV (RFC 4180: CRLF line ends, a header line). */
export function transactionsCsv(rows: readonly CsvRow[], ownWallets: ReadonlyMap<string, string>): string {
  const lines = [CSV_COLUMNS.join(',')];
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

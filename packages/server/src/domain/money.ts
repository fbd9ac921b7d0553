// Money is integer micro-units (1 USDC = 1_000_000 micros) held in bigint from the wire to the database.
// No float ever touches an amount: parsing and rendering are pure string <-> bigint conversions.

export const CURRENCY = 'USDC';
export const DECIMALS = 6;
export const MICROS_PER_UNIT = 1_000_000n;
/** The contract's ceiling for one amount: 1,000,000,000 USDC. */
export const AMOUNT_MAX_MICROS = 1_000_000_000n * MICROS_PER_UNIT;
/** Longest amount string we even look at (10 integer digits, a dot, 6 decimals, with slack). */
export const AMOUNT_STRING_LENGTH_MAX = 32;

const AMOUNT_PATTERN = /^(0|[1-9][0-9]*)(\.[0-9]{1,6})?$/;

export type AmountParse = { ok: true; micros: bigint } | { ok: false; reason: string };

/** Parses a wire amount (a decimal string) into micro-units, or says precisely what is wrong with it. */
export function parseAmount(value: unknown): AmountParse {
  if (value === undefined) return { ok: false, reason: 'is required' };
  if (typeof value !== 'string') {
    return { ok: false, reason: `must be a decimal string such as "10.5", not a ${jsonTypeName(value)}` };
  }
  if (value.length === 0) return { ok: false, reason: 'must not be empty' };
  if (value.length > AMOUNT_STRING_LENGTH_MAX) return { ok: false, reason: 'is too long' };
  if (!AMOUNT_PATTERN.test(value)) return { ok: false, reason: describeBadAmount(value) };
  const micros = decimalToMicros(value);
  if (micros <= 0n) return { ok: false, reason: 'must be greater than zero' };
  if (micros > AMOUNT_MAX_MICROS) return { ok: false, reason: 'must be at most 1000000000' };
  return { ok: true, micros };
}

function describeBadAmount(value: string): string {
  if (value.startsWith('-')) return 'must be positive (no sign)';
  if (value.startsWith('+')) return 'must not carry a sign';
  if (/[eE]/.test(value)) return 'must not use exponent notation';
  const fraction = value.split('.')[1];
  if (fraction !== undefined && /^[0-9]{7,}$/.test(fraction)) return 'has more than 6 decimal places';
  if (value.startsWith('.')) return 'needs a digit before the decimal point (write "0.5", not ".5")';
  if (value.endsWith('.')) return 'needs a digit after the decimal point (write "1.0" or "1", not "1.")';
  if (/^0[0-9]/.test(value)) return 'must not have leading zeros';
  return 'must be a decimal string of digits with an optional "." and up to 6 decimals, such as "10.5"';
}

/** Converts a string already matching AMOUNT_PATTERN; exported for the daily-cap style params too. */
export function decimalToMicros(value: string): bigint {
  const [whole = '0', fraction = ''] = value.split('.');
  return BigInt(whole) * MICROS_PER_UNIT + BigInt(fraction.padEnd(DECIMALS, '0'));
}

/** Renders micro-units with exactly 6 decimals: 10500000n -> "10.500000". Negative values keep their sign. */
export function formatMicros(micros: bigint): string {
  const sign = micros < 0n ? '-' : '';
  const magnitude = micros < 0n ? -micros : micros;
  const whole = magnitude / MICROS_PER_UNIT;
  const fraction = (magnitude % MICROS_PER_UNIT).toString().padStart(DECIMALS, '0');
  return `${sign}${whole}.${fraction}`;
}

function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

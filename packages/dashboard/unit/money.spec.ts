import { describe, expect, it } from 'vitest';
import {
  checkAmount,
  compareAmounts,
  formatAmount,
  formatCap,
  formatUsdc,
  fromMicros,
  groupThousands,
  MAX_AMOUNT_MICROS,
  toMicros,
  trimAmount,
} from '../src/money.ts';

function reason(input: string): string {
  const check = checkAmount(input);
  if (check.ok) throw new Error(`${JSON.stringify(input)} was accepted`);
  return check.reason;
}

describe('checkAmount', () => {
  it.each([
    ['1', 1_000_000n],
    ['0.5', 500_000n],
    ['10.5', 10_500_000n],
    ['0.000001', 1n],
    ['123.456789', 123_456_789n],
    ['1000000000', MAX_AMOUNT_MICROS],
    ['1000000000.000000', MAX_AMOUNT_MICROS],
    ['  42  ', 42_000_000n],
  ])('accepts %j', (input, micros) => {
    const check = checkAmount(input);
    expect(check).toEqual({ ok: true, value: input.trim(), micros });
  });

  it.each([
    ['', /enter an amount/i],
    ['   ', /enter an amount/i],
    ['.5', /leading zero/i],
    ['1.', /after the decimal point/i],
    ['007', /leading zeros/i],
    ['00.5', /leading zeros/i],
    ['1e3', /exponent/i],
    ['1E3', /exponent/i],
    ['-1', /above zero/i],
    ['+1', /without a sign/i],
    ['1.1234567', /at most 6 decimal places/i],
    ['0.0000001', /at most 6 decimal places/i],
    ['1000000000.000001', /at most 1,000,000,000/],
    ['99999999999999999999', /at most 1,000,000,000/],
    ['0', /above zero/i],
    ['0.000000', /above zero/i],
    ['1,000', /thousands separators/i],
    ['1.2.3', /at most one decimal point/i],
    ['abc', /digits/i],
    ['12 34', /digits/i],
    ['0x10', /digits/i],
    ['Infinity', /digits/i],
    ['NaN', /digits/i],
    ['١٢', /digits/i],
  ])('refuses %j with a message', (input, message) => {
    expect(reason(input)).toMatch(message);
  });
});

describe('micro-units', () => {
  it('converts both ways without floats', () => {
    expect(toMicros('0.1')).toBe(100_000n);
    expect(toMicros('0.2') + toMicros('0.1')).toBe(toMicros('0.3'));
    expect(fromMicros(toMicros('0.1') + toMicros('0.2'))).toBe('0.300000');
    expect(fromMicros(1n)).toBe('0.000001');
    expect(fromMicros(MAX_AMOUNT_MICROS)).toBe('1000000000.000000');
    expect(fromMicros(-1_500_000n)).toBe('-1.500000');
    expect(() => toMicros('1e3')).toThrow();
  });

  it('compares exactly', () => {
    expect(compareAmounts('10.000000', '10')).toBe(0);
    expect(compareAmounts('0.000001', '0.000002')).toBe(-1);
    expect(compareAmounts('9007199254740993', '9007199254740992')).toBe(1);
  });
});

describe('formatting', () => {
  it('groups thousands with string operations', () => {
    expect(groupThousands('0')).toBe('0');
    expect(groupThousands('999')).toBe('999');
    expect(groupThousands('1000')).toBe('1,000');
    expect(groupThousands('1234567')).toBe('1,234,567');
    expect(groupThousands('1000000000')).toBe('1,000,000,000');
  });

  it.each([
    ['0.000000', '0.00'],
    ['1.000000', '1.00'],
    ['1234567.500000', '1,234,567.50'],
    ['0.000001', '0.000001'],
    ['10.123400', '10.1234'],
    ['1000000000.000000', '1,000,000,000.00'],
    ['9007199254740993.000001', '9,007,199,254,740,993.000001'],
    ['-5.5', '-5.50'],
    ['5', '5.00'],
  ])('formats %j as %j', (input, output) => {
    expect(formatAmount(input)).toBe(output);
  });

  it('leaves anything that is not a decimal as it is', () => {
    expect(formatAmount('n/a')).toBe('n/a');
  });

  it('names the currency and the absence of a cap', () => {
    expect(formatUsdc('1500.250000')).toBe('1,500.25 USDC');
    expect(formatCap(null)).toBe('No cap');
    expect(formatCap('0.000000')).toBe('0.00 USDC');
  });

  it('trims a server amount for editing', () => {
    expect(trimAmount('10.000000')).toBe('10');
    expect(trimAmount('10.500000')).toBe('10.5');
    expect(trimAmount('100')).toBe('100');
    expect(checkAmount(trimAmount('0.000100')).ok).toBe(true);
  });
});

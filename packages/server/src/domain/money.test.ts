import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AMOUNT_MAX_MICROS, formatMicros, parseAmount } from './money.ts';

test('parses the contract examples into micro-units', () => {
  assert.deepEqual(parseAmount('10.5'), { ok: true, micros: 10_500_000n });
  assert.deepEqual(parseAmount('0.000001'), { ok: true, micros: 1n });
  assert.deepEqual(parseAmount('1000000000'), { ok: true, micros: AMOUNT_MAX_MICROS });
  assert.deepEqual(parseAmount('0.1'), { ok: true, micros: 100_000n });
});

test('refuses every malformed amount with a message that says what is wrong', () => {
  const cases: Array<[unknown, RegExp]> = [
    [10.5, /decimal string.*not a number/],
    [null, /not a null/],
    ['-1', /positive/],
    ['+1', /sign/],
    ['.5', /digit before/],
    ['1.', /digit after/],
    ['007', /leading zeros/],
    ['1e3', /exponent/],
    ['1.0000001', /more than 6 decimal places/],
    ['0', /greater than zero/],
    ['0.000000', /greater than zero/],
    ['1000000000.000001', /at most 1000000000/],
    ['', /empty/],
    ['1,5', /decimal string of digits/],
    [' 1', /decimal string of digits/],
    ['9'.repeat(40), /too long/],
  ];
  for (const [input, reason] of cases) {
    const parsed = parseAmount(input);
    assert.equal(parsed.ok, false, `accepted ${JSON.stringify(input)}`);
    if (!parsed.ok) assert.match(parsed.reason, reason, `for ${JSON.stringify(input)}`);
  }
});

test('renders exactly six decimals and round-trips', () => {
  assert.equal(formatMicros(10_500_000n), '10.500000');
  assert.equal(formatMicros(0n), '0.000000');
  assert.equal(formatMicros(1n), '0.000001');
  assert.equal(formatMicros(-1_000_001n), '-1.000001');
  for (const text of ['1', '0.5', '123456.654321', '1000000000']) {
    const parsed = parseAmount(text);
    assert.ok(parsed.ok);
    if (parsed.ok) assert.equal(parseAmount(formatMicros(parsed.micros)).ok, true);
  }
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { findUnpairedSurrogate, mayHoldSurrogateEscape } from './unicode.ts';

test('an unpaired surrogate anywhere is found with its path', () => {
  assert.deepEqual(findUnpairedSurrogate('bad\ud800'), { path: [], inFieldName: false });
  assert.deepEqual(findUnpairedSurrogate({ label: 'bad\ud800' }), { path: ['label'], inFieldName: false });
  assert.deepEqual(findUnpairedSurrogate({ label: '\udc00x' }), { path: ['label'], inFieldName: false });
  assert.deepEqual(findUnpairedSurrogate({ params: { memo: 'a', list: ['ok', 'x\udfff'] } }), {
    path: ['params', 'list', '1'],
    inFieldName: false,
  });
  assert.deepEqual(findUnpairedSurrogate({ params: { 'k\ud800': 1 } }), {
    path: ['params'],
    inFieldName: true,
  });
  // A pair the wrong way round is two unpaired halves.
  assert.deepEqual(findUnpairedSurrogate({ a: '\udc00\ud800' }), { path: ['a'], inFieldName: false });
});

test('well-formed values, astral characters included, have none', () => {
  for (const value of [null, 1, true, 'plain', '😀 \ud83d\ude00', { a: ['b', { c: 'é' }] }, [], {}]) {
    assert.equal(findUnpairedSurrogate(value), null, JSON.stringify(value));
  }
});

test('deeply nested bodies are walked without overflowing the stack', () => {
  let deep: unknown = 'x\ud800';
  for (let i = 0; i < 40_000; i += 1) deep = [deep];
  const found = findUnpairedSurrogate(deep);
  assert.equal(found?.path.length, 40_000);
  assert.ok(found?.path.every((key) => key === '0'));
});

test('property: a value holds an unpaired surrogate exactly when JSON.stringify has to escape one', () => {
  // Any code point, or a surrogate half on its own (two halves in a row may pair up, which is well-formed).
  const half = fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit));
  const text = fc.string({
    unit: fc.oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), half),
    maxLength: 8,
  });
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      text,
      fc.integer(),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(text, tie('value'), { maxKeys: 4 }),
    ),
  })).value;
  // Well-formed JSON.stringify writes an unpaired surrogate, and only that, as a \u escape of a surrogate (a
  // literal backslash before "ud800" is itself escaped: an odd run of backslashes marks a real escape).
  const escapesOne = (value: unknown) => /(?<!\\)(?:\\\\)*\\u[dD][89a-fA-F]/.test(JSON.stringify(value));
  fc.assert(
    fc.property(json, (value) => {
      assert.equal(findUnpairedSurrogate(value) !== null, escapesOne(value));
    }),
    { numRuns: 2000 },
  );
});

test('only JSON text with a \\u escape of a surrogate can hold one', () => {
  assert.equal(mayHoldSurrogateEscape('{"label":"bad\\ud800"}'), true);
  assert.equal(mayHoldSurrogateEscape('{"label":"bad\\uDFFF"}'), true);
  assert.equal(mayHoldSurrogateEscape('{"label":"\\ud83d\\ude00"}'), true, 'a pair is walked, then passes');
  assert.equal(mayHoldSurrogateEscape('{"label":"😀 \\u00e9"}'), false);
  assert.equal(mayHoldSurrogateEscape(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]).toString('utf8')), false);
});

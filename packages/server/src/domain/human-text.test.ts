import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  hasVisibleCharacter,
  hiddenCharacterIn,
  humanTextProblem,
  isHiddenCharacter,
  JOINERS,
  withoutHiddenCharacters,
} from './human-text.ts';

/** Characters that hide, reorder or break a line, one of each kind the rule names. */
const REFUSED = [
  '\u0000', // NUL
  '\t',
  '\n',
  '\r',
  '\u001b', // ESC
  '\u007f', // DEL
  '\u0085', // NEXT LINE (C1)
  '\u00ad', // SOFT HYPHEN (Cf)
  '\u061c', // ARABIC LETTER MARK
  '\u200b', // ZERO WIDTH SPACE
  '\u200e', // LEFT-TO-RIGHT MARK
  '\u200f', // RIGHT-TO-LEFT MARK
  '\u202a', // LEFT-TO-RIGHT EMBEDDING
  '\u202b',
  '\u202c', // POP DIRECTIONAL FORMATTING
  '\u202d', // LEFT-TO-RIGHT OVERRIDE
  '\u202e', // RIGHT-TO-LEFT OVERRIDE
  '\u2028', // LINE SEPARATOR (Zl)
  '\u2029', // PARAGRAPH SEPARATOR (Zp)
  '\u2060', // WORD JOINER
  '\u2066', // LEFT-TO-RIGHT ISOLATE
  '\u2067',
  '\u2068',
  '\u2069', // POP DIRECTIONAL ISOLATE
  '\ufeff', // BYTE ORDER MARK
  '\ufff9', // INTERLINEAR ANNOTATION ANCHOR
  '\u{110bd}', // KAITHI NUMBER SIGN (Cf beyond the BMP)
  '\u{1d173}', // MUSICAL SYMBOL BEGIN BEAM
  '\u{e0001}', // LANGUAGE TAG
  '\u{e0041}', // TAG LATIN CAPITAL LETTER A
  '\u{e007f}', // CANCEL TAG
  '\ud800', // a lone surrogate
  '\udfff',
];

/** Text people write: joiners and variation selectors inside it are part of it. */
const ALLOWED = [
  'Savings',
  'Trading bot #2 (prod)',
  '👩\u200d💻 dev team', // ZWJ sequence
  '👨\u200d👩\u200d👧\u200d👦',
  '🏳\ufe0f\u200d🌈', // VS16 and ZWJ
  '❤\ufe0f',
  'می\u200cخواهم', // Persian with ZERO WIDTH NON-JOINER
  'क्\u200dष', // Devanagari with ZWJ
  'חיסכון', // Hebrew: right to left without any control character
  'مدخرات',
  'Épargne — 貯金 ½ ©',
  '  spaces are fine inside and around  ',
  '\u00a0non-breaking\u3000ideographic space',
];

test('every kind of control, format, separator and lone-surrogate character is refused, named by its code point', () => {
  for (const char of REFUSED) {
    const codePoint = char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    assert.equal(isHiddenCharacter(char), true, codePoint);
    assert.equal(hiddenCharacterIn(`Savings ${char} 0xab`), `U+${codePoint}`);
    assert.match(
      humanTextProblem(`x${char}`)!,
      new RegExp(`must be one line of plain text.*U\\+${codePoint}\\)$`),
    );
  }
});

test('text people write is accepted, zero-width joiners and non-joiners included', () => {
  for (const text of ALLOWED) {
    assert.equal(hiddenCharacterIn(text), null, JSON.stringify(text));
    assert.equal(humanTextProblem(text), null);
    assert.equal(hasVisibleCharacter(text), true);
  }
  for (const joiner of JOINERS) assert.equal(isHiddenCharacter(joiner), false);
});

test('the first refused character is the one named', () => {
  assert.equal(hiddenCharacterIn('a\u202eb\rc'), 'U+202E');
  assert.equal(hiddenCharacterIn('a\rb\u202ec'), 'U+000D');
});

test('only whitespace and joiners show nothing', () => {
  for (const text of ['', ' ', '\u200d', ' \u200c\u200d ', '\u3000\u00a0'])
    assert.equal(hasVisibleCharacter(text), false);
  assert.equal(hasVisibleCharacter(' \u200dx '), true);
});

/** Any text, with refused characters mixed in now and then. */
const mixedText = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
      fc.constantFrom(...REFUSED, ...JOINERS),
    ),
    {
      maxLength: 12,
    },
  )
  .map((parts) => parts.join(''));

test('property: text is refused exactly when one of its characters is', () => {
  fc.assert(
    fc.property(mixedText, (text) => {
      const anyHidden = [...text].some(isHiddenCharacter);
      assert.equal(hiddenCharacterIn(text) !== null, anyHidden, JSON.stringify(text));
      assert.equal(humanTextProblem(text) !== null, anyHidden);
    }),
    { numRuns: 2_000, seed: 37 },
  );
});

test('property: a refused character anywhere in accepted text makes it refused', () => {
  fc.assert(
    fc.property(fc.constantFrom(...ALLOWED), fc.constantFrom(...REFUSED), fc.nat(), (text, char, at) => {
      const points = [...text];
      const index = at % (points.length + 1);
      const spoiled = [...points.slice(0, index), char, ...points.slice(index)].join('');
      assert.equal(
        hiddenCharacterIn(spoiled),
        `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`,
      );
    }),
    { numRuns: 1_000, seed: 37 },
  );
});

test('property: cleaning leaves nothing refused, keeps accepted text as it is, and never joins words', () => {
  fc.assert(
    fc.property(mixedText, (text) => {
      const clean = withoutHiddenCharacters(text);
      assert.equal(hiddenCharacterIn(clean), null, JSON.stringify(text));
      if (hiddenCharacterIn(text) === null) assert.equal(clean, text);
      assert.ok([...clean].length <= [...text].length);
    }),
    { numRuns: 2_000, seed: 37 },
  );
  assert.equal(withoutHiddenCharacters('pay\r\n\u202eevil'), 'pay evil');
});

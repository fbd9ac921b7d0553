import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { translations } from '@zxcvbn-ts/language-en';
import fc from 'fast-check';
import {
  estimatorLoaded,
  PASSWORD_ESTIMATE_LENGTH_MAX,
  PASSWORD_LENGTH_MAX,
  PASSWORD_LENGTH_MIN,
  PASSWORD_SCORE_MIN,
  passwordProblem,
  passwordStrength,
  releaseEstimator,
} from './passwords.ts';

/** n distinct-looking emoji (no repeats within 80): strong by any estimate, 2 UTF-16 units each. */
const emoji = (n: number) =>
  Array.from({ length: n }, (_, i) => String.fromCodePoint(0x1f600 + ((i * 7) % 80))).join('');

test('ordinary strong passwords and passphrases of 8 to 128 characters are accepted', () => {
  for (const password of [
    'a long enough password',
    'correct horse battery staple',
    'Zq7!vR2#k',
    '  spaced out inside  ',
    'пароль-на-русском',
    emoji(8), // 8 code points (16 UTF-16 units)
    `q7!vR2#Z${'x'.repeat(PASSWORD_LENGTH_MAX - 8)}`,
  ]) {
    assert.equal(passwordProblem(password), null, password);
  }
});

test('length counts code points: 7 is too short and 129 too long, whatever the UTF-16 length', () => {
  assert.match(passwordProblem('Zq7!vR2')!, /at least 8 characters/);
  assert.match(passwordProblem(emoji(PASSWORD_LENGTH_MIN - 1))!, /at least 8/);
  assert.equal(passwordProblem(emoji(PASSWORD_LENGTH_MAX)), null, '128 emoji are 256 UTF-16 units');
  assert.match(passwordProblem(emoji(PASSWORD_LENGTH_MAX + 1))!, /at most 128 characters/);
  assert.match(passwordProblem('y'.repeat(PASSWORD_LENGTH_MAX + 1))!, /at most 128/);
});

test('the outside test’s weak passwords are refused, each with its reason', () => {
  for (const password of ['aaaaaaaaaaaa', '123456789012', 'abcdefghijkl', 'password', '12345678']) {
    assert.match(passwordProblem(password)!, /too easy to guess \(strength [0-2] of 4, at least 3 needed\)/);
  }
  assert.match(passwordProblem(' '.repeat(8))!, /only spaces/);
  assert.match(passwordProblem('\u0000'.repeat(8))!, /control characters/);
});

test('the reason carries the estimator’s warning and suggestions', () => {
  assert.match(passwordProblem('aaaaaaaaaaaa')!, /Repeated characters like "aaa" are easy to guess\./);
  assert.match(passwordProblem('abcdefghijkl')!, /Common character sequences like "abc" are easy to guess\./);
  assert.match(
    passwordProblem('iloveyou')!,
    /frequently used password\. Add more words that are less common\./,
  );
  assert.match(
    passwordProblem('Zq7!vR2#')!,
    /strength 2 of 4.*: Add more words/,
    'random but only 8 characters',
  );
});

test('common passwords are refused whatever their case, l33t spelling or the spaces around them', () => {
  for (const password of [
    'PASSWORD',
    'PassWord',
    'password123',
    'P@ssw0rd123',
    ' qwertyuiop ',
    'iloveyou',
    'whatever1',
  ]) {
    assert.match(passwordProblem(password)!, /too easy to guess/, password);
  }
});

test('the estimate reads the first 64 characters: a weak start is not saved by what follows', () => {
  const strongTail = 'q7!vR2#Zk9$mW';
  assert.match(
    passwordProblem(`${'a'.repeat(PASSWORD_ESTIMATE_LENGTH_MAX)}${strongTail}`)!,
    /too easy to guess/,
  );
  assert.equal(
    passwordProblem(`${'a'.repeat(PASSWORD_ESTIMATE_LENGTH_MAX - strongTail.length)}${strongTail}`),
    null,
  );
});

test('the minimum score is 3 of zxcvbn’s 0-4: a score-2 password is refused, a score-3 one accepted', () => {
  assert.equal(PASSWORD_SCORE_MIN, 3);
  assert.equal(passwordStrength('Zq7!vR2#').score, 2);
  assert.match(passwordProblem('Zq7!vR2#')!, /too easy/);
  assert.equal(passwordStrength('Zq7!vR2#k').score, 3);
  assert.equal(passwordProblem('Zq7!vR2#k'), null);
});

test('control characters anywhere, and unpaired surrogates, are refused', () => {
  for (const control of ['\u0000', '\t', '\n', '\r', '\u001b', '\u007f', '\u0085', '\u009f']) {
    assert.match(
      passwordProblem(`a long ${control} password`)!,
      /control characters/,
      JSON.stringify(control),
    );
  }
  for (const surrogate of ['\ud800', '\udfff', '\udc00\ud800']) {
    assert.match(passwordProblem(`a long password ${surrogate}`)!, /unpaired surrogate/);
  }
});

test('only whitespace or invisible format characters is refused', () => {
  for (const password of [
    ' '.repeat(8),
    '\u00a0'.repeat(8),
    '\u3000'.repeat(8),
    '\u200b'.repeat(8),
    ' \u2028\u2029\u00a0\ufeff\u200d\u2060 ',
  ]) {
    assert.match(passwordProblem(password)!, /only spaces or invisible/, JSON.stringify(password));
  }
});

test('the reason never quotes the password: it is fixed text, the estimator’s sentences included', () => {
  for (const password of ['Zq7!vR2', 'aaaaaaaaaaaa', 'iloveyou', '\u0000'.repeat(8), `${'z'.repeat(129)}`]) {
    const reason = passwordProblem(password)!;
    assert.ok(!reason.includes(password), reason);
  }
  // Every sentence the estimator may add is one of its English table's; nothing else follows the score.
  const sentences = [...Object.values(translations.warnings), ...Object.values(translations.suggestions)];
  const sentence = `(?:${sentences.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`;
  const fixedText = new RegExp(
    `^(?:is too easy to guess \\(strength [0-2] of 4, at least 3 needed\\)(?:: ${sentence}(?: ${sentence})*)?|` +
      'must .*)$',
  );
  const weakPart = fc.constantFrom(
    'password',
    'qwerty',
    'dragon',
    'abcdef',
    'aaaa',
    '123456',
    '2024',
    'Admin',
    '!',
  );
  const passwords = fc.oneof(
    fc.string({ minLength: PASSWORD_LENGTH_MIN, maxLength: 24 }),
    fc
      .array(weakPart, { minLength: 1, maxLength: 4 })
      .map((parts) => parts.join('').padEnd(PASSWORD_LENGTH_MIN, '1')),
  );
  fc.assert(
    fc.property(passwords, (password) => {
      const reason = passwordProblem(password);
      if (reason === null) return;
      assert.match(reason, fixedText, JSON.stringify(password));
      if (reason.startsWith('must')) assert.ok(!reason.includes(password), reason);
    }),
    { numRuns: 200, seed: 37 },
  );
});

test('a strong password stays strong with anything appended past the estimate’s 64 characters', () => {
  const base = 'Zq7!vR2#k';
  fc.assert(
    fc.property(fc.string({ maxLength: PASSWORD_LENGTH_MAX - PASSWORD_ESTIMATE_LENGTH_MAX }), (tail) => {
      const head = `${base}${'-'.repeat(PASSWORD_ESTIMATE_LENGTH_MAX - base.length)}`;
      const verdict = passwordStrength(head).score >= PASSWORD_SCORE_MIN;
      assert.equal(
        passwordStrength(`${head}${tail}`).score >= PASSWORD_SCORE_MIN,
        verdict,
        JSON.stringify(tail),
      );
    }),
    { numRuns: 50, seed: 37 },
  );
});

test('the estimator lets its dictionaries go: released, the heap is smaller by most of them, and it builds again', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const heapAfterGcBytes = () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  assert.equal(passwordStrength('correct horse battery staple 9').score, 4);
  assert.equal(estimatorLoaded(), true);
  const loadedBytes = heapAfterGcBytes();
  releaseEstimator();
  assert.equal(estimatorLoaded(), false);
  const releasedBytes = heapAfterGcBytes();
  // Measured: about 24 MB. Half of it is the bound, far from the noise of a test process's heap.
  assert.ok(
    loadedBytes - releasedBytes > 12 * 1024 * 1024,
    `${(loadedBytes - releasedBytes) / 1048576} MB freed`,
  );
  assert.equal(passwordStrength('aaaaaaaaaaaa').score < 3, true);
  assert.equal(estimatorLoaded(), true);
  releaseEstimator();
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PASSWORD_LENGTH_MAX, PASSWORD_LENGTH_MIN, passwordProblem } from './passwords.ts';

test('ordinary passwords of 8 to 128 characters are accepted', () => {
  for (const password of [
    'a long enough password',
    'correct horse battery staple',
    'Zq7!vR2#',
    '  spaced out inside  ',
    'пароль-на-русском',
    '😀😀😀😀😀😀😀😀', // 8 code points (16 UTF-16 units)
    'x'.repeat(PASSWORD_LENGTH_MAX - 8) + 'q7!vR2#Z',
  ]) {
    assert.equal(passwordProblem(password), null, password);
  }
});

test('length counts code points: 7 is too short and 129 too long, whatever the UTF-16 length', () => {
  assert.match(passwordProblem('Zq7!vR2')!, /at least 8 characters/);
  assert.match(passwordProblem('😀'.repeat(PASSWORD_LENGTH_MIN - 1))!, /at least 8/);
  assert.equal(passwordProblem('😀'.repeat(PASSWORD_LENGTH_MAX)), null, '128 emoji are 256 UTF-16 units');
  assert.match(passwordProblem('😀'.repeat(PASSWORD_LENGTH_MAX + 1))!, /at most 128 characters/);
  assert.match(passwordProblem('y'.repeat(PASSWORD_LENGTH_MAX + 1))!, /at most 128/);
});

test('the outside test’s weak passwords are refused, each with its reason', () => {
  assert.match(passwordProblem('password')!, /too common/);
  assert.match(passwordProblem('12345678')!, /too common/);
  assert.match(passwordProblem(' '.repeat(8))!, /only spaces/);
  assert.match(passwordProblem('\u0000'.repeat(8))!, /control characters/);
});

test('common passwords are refused case-insensitively and with spaces around them', () => {
  for (const password of ['PASSWORD', 'PassWord', 'password123', 'Password123', ' qwertyuiop ', 'iloveyou']) {
    assert.match(passwordProblem(password)!, /too common/, password);
  }
});

test('only the 10,000 most common are refused: a password ranked lower is allowed', () => {
  // "whatever1" is ranked about 15,500th in zxcvbn-ts's list.
  assert.equal(passwordProblem('whatever1'), null);
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

test('the reason never quotes the password', () => {
  for (const password of ['password', 'Zq7!vR2', '\u0000'.repeat(8), `${'z'.repeat(129)}`]) {
    const reason = passwordProblem(password)!;
    assert.ok(!reason.includes(password), reason);
  }
});

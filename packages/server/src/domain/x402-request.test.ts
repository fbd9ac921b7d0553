import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HEADER_NAME_PATTERN, HEADER_VALUE_PATTERN } from './x402-request.ts';

test('header names are RFC 9110 tokens; values visible ASCII, space and tab', () => {
  for (const name of ['accept', 'X-Api-Key', "a!#$%&'*+-.^_`|~9"])
    assert.ok(HEADER_NAME_PATTERN.test(name), name);
  for (const name of ['', 'two words', 'x:y', 'x\r\ny', 'naïve', 'a(b)', 'x\0'])
    assert.ok(!HEADER_NAME_PATTERN.test(name), JSON.stringify(name));
  for (const value of ['', 'Bearer abc', 'a\tb', '~!@ {}'])
    assert.ok(HEADER_VALUE_PATTERN.test(value), value);
  for (const value of ['a\r\nX-Evil: 1', 'a\nb', 'a\rb', 'a\0b', 'caf\u00e9', '\u20ac5', 'a\u2028b', '\x7f'])
    assert.ok(!HEADER_VALUE_PATTERN.test(value), JSON.stringify(value));
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HEADER_NAME_PATTERN, HEADER_VALUE_PATTERN, keyLeakIn } from './x402-request.ts';

const RANDOM = 'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7dEf0hIj3';
const KEY = `svc_live_${RANDOM}`;
const clean = {
  url: 'https://seller.example/report?page=2',
  headers: { accept: 'application/json' },
  body: null,
};

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

test('a request without a key passes', () => {
  assert.equal(keyLeakIn(clean, KEY), null);
  assert.equal(keyLeakIn({ ...clean, body: '{"note":"svc_live_ is the prefix of a key"}' }, null), null);
});

test('an API key of this service is found in any case, in headers, URL and body', () => {
  const mixed = `SVC_Live_${RANDOM}`;
  assert.equal(keyLeakIn({ ...clean, headers: { 'X-Key': mixed } }, null), 'headers: x-key');
  const named = keyLeakIn({ ...clean, headers: { [KEY]: '1' } }, null);
  assert.equal(named, 'headers: a header name', 'a key used as a name is not echoed');
  assert.equal(keyLeakIn({ ...clean, url: `https://seller.example/r?k=${mixed}` }, null), 'url');
  assert.equal(keyLeakIn({ ...clean, url: `https://seller.example/keys/${KEY}/report` }, null), 'url');
  assert.equal(keyLeakIn({ ...clean, body: JSON.stringify({ key: KEY }) }, null), 'body');
  assert.equal(keyLeakIn({ ...clean, body: `k=${mixed}` }, null), 'body');
});

test('encoded forms are read as a receiver would: percent-encoded (twice) and JSON-escaped', () => {
  assert.equal(keyLeakIn({ ...clean, url: `https://s.example/r?k=%73vc%5Flive%5F${RANDOM}` }, null), 'url');
  assert.equal(keyLeakIn({ ...clean, url: `https://s.example/r?k=%2573vc_live_${RANDOM}` }, null), 'url');
  assert.equal(keyLeakIn({ ...clean, body: `{"k":"\\u0073vc_live_${RANDOM}"}` }, null), 'body');
  assert.equal(
    keyLeakIn({ ...clean, body: `k=%E2%82%AC%FF%73vc_live_${RANDOM}` }, null),
    'body',
    'bad UTF-8 too',
  );
});

test('the caller’s own key is found without its prefix, in any case; other text is not', () => {
  assert.equal(keyLeakIn({ ...clean, url: `https://s.example/r?token=${RANDOM}` }, KEY), 'url');
  assert.equal(keyLeakIn({ ...clean, body: RANDOM.toLowerCase() }, KEY), 'body');
  assert.equal(keyLeakIn({ ...clean, headers: { 'x-token': RANDOM } }, KEY), 'headers: x-token');
  assert.equal(
    keyLeakIn({ ...clean, body: RANDOM }, null),
    null,
    'without the caller’s key it is ordinary text',
  );
  assert.equal(keyLeakIn({ ...clean, body: 'svc' }, 'svc'), null, 'a short credential is not looked for');
});

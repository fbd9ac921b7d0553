import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkWebhookUrl, isPrivateAddress } from './webhook-url.ts';

test('private, loopback, link-local, CGNAT, multicast and mapped addresses are private; public ones are not', () => {
  for (const a of [
    '127.0.0.1',
    '10.0.0.1',
    '172.16.5.4',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fd00::1',
    'fe80::1',
    '::ffff:10.0.0.1',
    'not-an-ip',
  ]) {
    assert.equal(isPrivateAddress(a), true, a);
  }
  for (const a of ['8.8.8.8', '172.32.0.1', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
    assert.equal(isPrivateAddress(a), false, a);
  }
});

test('only https without credentials, unless private targets are allowed (then http and loopback too)', () => {
  assert.equal(checkWebhookUrl('https://hooks.example.com/x', false).ok, true);
  assert.equal(checkWebhookUrl('http://hooks.example.com/x', false).ok, false);
  assert.equal(checkWebhookUrl('https://127.0.0.1/x', false).ok, false);
  assert.equal(checkWebhookUrl('https://sub.localhost/x', false).ok, false);
  assert.equal(checkWebhookUrl('https://a:b@hooks.example.com/x', false).ok, false);
  assert.equal(checkWebhookUrl('ftp://hooks.example.com/x', true).ok, false);
  assert.equal(checkWebhookUrl('http://127.0.0.1:9/x', true).ok, true);
  assert.equal(checkWebhookUrl(`https://example.com/${'a'.repeat(2100)}`, false).ok, false);
});

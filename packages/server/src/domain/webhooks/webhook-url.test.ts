import assert from 'node:assert/strict';
import { test } from 'node:test';
import ipaddr from 'ipaddr.js';
import { addressSet, checkWebhookUrl, embeddedIpv4, isPrivateAddress } from './webhook-url.ts';

const NONE = addressSet([]);

/** [address, why it is not public]: every form the outside test found, and the ranges around them. */
const REFUSED: [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.5.4', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['100.64.0.1', 'CGNAT'],
  ['0.0.0.0', 'unspecified'],
  ['224.0.0.1', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['192.0.0.8', 'IETF protocol assignments'],
  ['192.0.2.1', 'documentation TEST-NET-1'],
  ['198.51.100.7', 'documentation TEST-NET-2'],
  ['203.0.113.9', 'documentation TEST-NET-3'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fd00::1', 'unique-local'],
  ['fe80::1', 'link-local'],
  ['fec0::1', 'site-local (deprecated)'],
  ['ff02::1', 'multicast'],
  ['100::1', 'discard'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['2001:2::1', 'benchmarking'],
  ['2001:10::1', 'ORCHID'],
  ['5f00::1', 'segment routing'],
  ['4000::1', 'outside 2000::/3'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['64:ff9b::169.254.169.254', 'NAT64 of link-local'],
  ['64:ff9b::10.0.0.1', 'NAT64 of private'],
  ['64:ff9b:1::808:808', 'local-use NAT64 (the IPv4 address has no fixed place)'],
  ['::127.0.0.1', 'IPv4-compatible loopback'],
  ['::ffff:0:127.0.0.1', 'SIIT loopback'],
  ['2002:a9fe:a9fe::', '6to4 of link-local'],
  ['2002:7f00:1::1', '6to4 of loopback'],
  ['2001:0:a9fe:a9fe::', 'Teredo, link-local server'],
  ['2001:0:808:808::f5ff:fffe', 'Teredo, public server, private client (10.0.0.1)'],
  ['not-an-ip', 'not an address'],
  ['2130706433', 'not a canonical address'],
];

const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '172.32.0.1',
  '2606:4700::1111',
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '::ffff:8.8.8.8',
  '64:ff9b::8.8.8.8',
  '2002:808:808::1',
  '2001:0:808:808::f7f7:f7f7',
];

test('only global unicast is public; an embedded IPv4 address is judged by itself', () => {
  for (const [address, why] of REFUSED)
    assert.equal(isPrivateAddress(address, NONE), true, `${address}: ${why}`);
  for (const address of PUBLIC) assert.equal(isPrivateAddress(address, NONE), false, address);
});

test('the host’s own addresses are refused, in any spelling', () => {
  const own = addressSet(['93.184.216.34', '2606:4700:0:0:0:0:6810:1', 'fe80::1', 'not-an-address']);
  for (const address of [
    '93.184.216.34',
    '::ffff:93.184.216.34',
    '64:ff9b::5db8:d822',
    '2606:4700::6810:1',
  ]) {
    assert.equal(isPrivateAddress(address, NONE), false, `${address} is public elsewhere`);
    assert.equal(isPrivateAddress(address, own), true, `${address} is this host`);
  }
  assert.equal(isPrivateAddress('8.8.8.8', own), false);
});

test('the IPv4 address inside each IPv6 form', () => {
  const inside = (address: string) => embeddedIpv4(ipaddr.IPv6.parse(address))?.map(String) ?? null;
  assert.deepEqual(inside('::ffff:1.2.3.4'), ['1.2.3.4']);
  assert.deepEqual(inside('::ffff:0:1.2.3.4'), ['1.2.3.4']);
  assert.deepEqual(inside('::1.2.3.4'), ['1.2.3.4']);
  assert.deepEqual(inside('64:ff9b::1.2.3.4'), ['1.2.3.4']);
  assert.deepEqual(inside('2002:102:304:5::6'), ['1.2.3.4']);
  // RFC 4380's example: server 65.54.227.120, client 192.0.2.45 (stored inverted).
  assert.deepEqual(inside('2001:0:4136:e378:8000:63bf:3fff:fdd2'), ['65.54.227.120', '192.0.2.45']);
  assert.equal(inside('64:ff9b:1::1.2.3.4'), null);
  assert.equal(inside('2606:4700::1111'), null);
});

test('a URL whose host is an address not public is refused, however the address is spelled', () => {
  for (const url of [
    'https://[64:ff9b::169.254.169.254]/',
    'https://[::127.0.0.1]/',
    'https://[::ffff:0:127.0.0.1]/',
    'https://[64:ff9b::10.0.0.1]/',
    'https://[2002:a9fe:a9fe::]/',
    'https://[2001:0:a9fe:a9fe::]/',
    'https://[2001:db8::1]/',
    'https://192.0.2.1/',
    'https://198.51.100.1/',
    'https://203.0.113.1/',
    'https://198.18.0.1/',
    'http://2130706433/',
    'https://2130706433/',
    'https://0x7f.1/',
    'https://0177.0.0.1/',
    'https://127.1/',
    'https://0xa9.0xfe.0xa9.0xfe/',
  ]) {
    const check = checkWebhookUrl(url, false, NONE);
    assert.equal(check.ok, false, url);
  }
  assert.equal(checkWebhookUrl('https://[2606:4700::1111]/', false, NONE).ok, true);
  assert.equal(checkWebhookUrl('https://8.8.8.8/', false, NONE).ok, true);
  assert.equal(checkWebhookUrl('https://8.8.8.8/', false, addressSet(['8.8.8.8'])).ok, false);
});

test('only https without credentials, unless private targets are allowed (then http and loopback too)', () => {
  assert.equal(checkWebhookUrl('https://hooks.example.com/x', false, NONE).ok, true);
  assert.equal(checkWebhookUrl('http://hooks.example.com/x', false, NONE).ok, false);
  assert.equal(checkWebhookUrl('https://127.0.0.1/x', false, NONE).ok, false);
  assert.equal(checkWebhookUrl('https://sub.localhost/x', false, NONE).ok, false);
  assert.equal(checkWebhookUrl('https://a:b@hooks.example.com/x', false, NONE).ok, false);
  assert.equal(checkWebhookUrl('ftp://hooks.example.com/x', true, NONE).ok, false);
  assert.equal(checkWebhookUrl('http://127.0.0.1:9/x', true, NONE).ok, true);
  assert.equal(checkWebhookUrl(`https://example.com/${'a'.repeat(2100)}`, false, NONE).ok, false);
});

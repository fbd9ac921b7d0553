// Where webhooks may be sent: https only, and never to this machine or a private network (SSRF), unless the
// operator allows it (WEBHOOK_ALLOW_PRIVATE=true, for tests and private networks; it also allows http). The
// address check runs at creation and again on every delivery, on the addresses the name resolves to then.
import { BlockList, isIP } from 'node:net';

export const WEBHOOK_URL_LENGTH_MAX = 2_048;

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** Loopback, private, link-local, carrier-grade NAT, multicast, reserved; IPv4-mapped IPv6 judged as IPv4. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return isPrivateAddress(mapped[1]!);
  const family = isIP(address);
  if (family === 0) return true; // not an address at all: refuse
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/** Pure: the URL's shape (the addresses it resolves to are checked separately). */
export function checkWebhookUrl(value: string, allowPrivate: boolean): UrlCheck {
  if (value.length > WEBHOOK_URL_LENGTH_MAX)
    return { ok: false, reason: `is longer than ${WEBHOOK_URL_LENGTH_MAX} characters` };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, reason: 'is not a URL' };
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    return { ok: false, reason: 'must be an https:// URL' };
  }
  if (url.username !== '' || url.password !== '')
    return { ok: false, reason: 'must not contain credentials' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && (host === 'localhost' || host.endsWith('.localhost'))) {
    return { ok: false, reason: 'must not point to this machine' };
  }
  if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) {
    return { ok: false, reason: 'must not point to a loopback, private or link-local address' };
  }
  return { ok: true, url };
}

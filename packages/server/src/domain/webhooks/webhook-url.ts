// Where webhooks (and x402_fetch) may be sent: https only, and only to a public address (SSRF), unless the
// operator allows it (WEBHOOK_ALLOW_PRIVATE=true, for tests and private networks; it also allows http). The
// address check runs at creation and again on every delivery, on the addresses the name resolves to then.
// "Public" is contract section 7: global unicast only, an IPv4 address carried inside an IPv6 one judged by
// what it carries, and never one of this host's own addresses.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export const WEBHOOK_URL_LENGTH_MAX = 2_048;

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** IPv6 global unicast (2000::/3): everything else (ULA, link-local, multicast, the ::/8 forms) is refused. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

function ipv4Of(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * Pure: the IPv4 addresses an IPv6 address carries (IPv4-mapped, IPv4-compatible, SIIT, NAT64 64:ff9b::/96,
 * 6to4, Teredo's server and client), or null when it is none of those forms. A connection to it may end at
 * the IPv4 address (a translator or relay on the way), so that is what must be judged.
 */
export function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const p = address.parts as [number, number, number, number, number, number, number, number];
  const last = ipv4Of(p[6], p[7]);
  switch (address.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // SIIT ::ffff:0:a.b.c.d
      return [last];
    case 'rfc6052':
      // 64:ff9b:1::/48 (local-use NAT64) may place the IPv4 address anywhere from bit 48: it is refused whole.
      return address.match(NAT64_WELL_KNOWN) ? [last] : null;
    case '6to4': // 2002:AABB:CCDD::/48
      return [ipv4Of(p[1], p[2])];
    case 'teredo': // 2001:0:<server>:<flags>:<port>:<client XOR ffff:ffff>
      return [ipv4Of(p[2], p[3]), ipv4Of(p[6] ^ 0xffff, p[7] ^ 0xffff)];
  }
  // Deprecated IPv4-compatible ::a.b.c.d (:: and ::1 land here too, as 0.0.0.0 and 0.0.0.1: refused).
  return p.slice(0, 6).every((part) => part === 0) ? [last] : null;
}

/** Pure: the set of this host's addresses (os.networkInterfaces() at the edge), in comparable form. */
export function addressSet(addresses: Iterable<string>): ReadonlySet<string> {
  const set = new Set<string>();
  for (const address of addresses) {
    if (ipaddr.isValid(address)) set.add(ipaddr.process(address).toNormalizedString());
  }
  return set;
}

function isPublic(address: Address, own: ReadonlySet<string>): boolean {
  if (own.has(address.toNormalizedString())) return false;
  if (address.kind() === 'ipv4') return address.range() === 'unicast';
  const v6 = address as ipaddr.IPv6;
  const embedded = embeddedIpv4(v6);
  if (embedded !== null) return embedded.every((v4) => isPublic(v4, own));
  return v6.range() === 'unicast' && v6.match(GLOBAL_UNICAST);
}

/**
 * Pure: anything not global unicast (loopback, private, link-local, CGNAT, unique-local, multicast,
 * documentation, benchmarking, reserved, unspecified, broadcast), an IPv6 form judged by the IPv4 address it
 * embeds, one of `own` (this host's addresses), or not an address at all.
 */
export function isPrivateAddress(address: string, own: ReadonlySet<string>): boolean {
  // isIP first: ipaddr.js would also read "0x7f.1" or "2130706433"; only the canonical forms are addresses here.
  if (isIP(address) === 0) return true;
  return !isPublic(ipaddr.parse(address), own);
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/** Pure: the URL's shape, and its host when that is an address (a name's addresses are checked separately). */
export function checkWebhookUrl(value: string, allowPrivate: boolean, own: ReadonlySet<string>): UrlCheck {
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
  // The URL parser has already turned 2130706433, 0x7f.1 and 0177.0.0.1 into 127.0.0.1.
  if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host, own)) {
    return { ok: false, reason: 'must point to a public address' };
  }
  return { ok: true, url };
}

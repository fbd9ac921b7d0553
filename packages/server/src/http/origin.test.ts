// The pure rules of origin.ts: which hosts a server knows, and where it says it is reached.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { type HostRules, isKnownHost, originRefusal, trustedBaseUrl } from './origin.ts';

const NONE: HostRules = { publicUrl: undefined, allowedOrigins: [] };
const ALLOWED: HostRules = { publicUrl: undefined, allowedOrigins: ['https://app.example.com'] };
const PUBLIC: HostRules = { publicUrl: 'https://wallet.example.com/', allowedOrigins: [] };

/** Host headers: the known ones, lookalikes, ports, garbage. */
const hosts = fc.oneof(
  fc.constantFrom(
    'localhost',
    'localhost:8787',
    '127.0.0.1:1',
    '[::1]:8787',
    'LOCALHOST:80',
    'app.example.com',
    'APP.example.com',
    'app.example.com.evil.example',
    'wallet.example.com',
    'evil.example',
    'evil.example:8787',
    'localhost.evil.example',
    '127.0.0.1.nip.io',
    // What a URL parser would read as credentials, a path or a fragment before another host.
    'localhost:@evil.example',
    'localhost:80@evil.example',
    '127.0.0.1:1/@evil.example',
    'localhost#@evil.example',
    '[::1]:1@evil.example',
    'localhost:abc',
    '',
  ),
  fc.domain(),
  fc.string({ maxLength: 30 }),
);

test('the base URL is PUBLIC_URL whenever it is set, whatever the Host', () => {
  fc.assert(
    fc.property(hosts, fc.constantFrom('http', 'https'), (host, protocol) => {
      assert.equal(trustedBaseUrl(host, protocol, PUBLIC), 'https://wallet.example.com');
    }),
  );
});

test('without PUBLIC_URL the base URL names a known host or is null: never a host nobody configured', () => {
  fc.assert(
    fc.property(
      hosts,
      fc.constantFrom('http', 'https'),
      fc.constantFrom(NONE, ALLOWED),
      (host, protocol, rules) => {
        const base = trustedBaseUrl(host, protocol, rules);
        assert.equal(base !== null, isKnownHost(host, rules), JSON.stringify(host));
        if (base !== null) assert.ok(isKnownHost(new URL(base).host, rules), base);
      },
    ),
    { numRuns: 500 },
  );
  assert.equal(trustedBaseUrl('evil.example:8787', 'http', NONE), null);
  assert.equal(
    trustedBaseUrl('app.example.com', 'http', ALLOWED),
    'https://app.example.com',
    'the origin’s scheme',
  );
  assert.equal(trustedBaseUrl('LocalHost:8787', 'http', NONE), 'http://localhost:8787');
});

test('a loopback server refuses exactly the hosts it does not know; Origin is judged only when given', () => {
  fc.assert(
    fc.property(hosts, fc.constantFrom(NONE, ALLOWED, PUBLIC), (host, rules) => {
      const refusal = originRefusal({ origin: undefined, host, protocol: 'http', checkHost: true, ...rules });
      assert.equal(refusal === undefined, isKnownHost(host, rules), JSON.stringify(host));
      assert.equal(
        originRefusal({ origin: undefined, host, protocol: 'http', checkHost: false, ...rules }),
        undefined,
      );
    }),
    { numRuns: 500 },
  );
  assert.equal(
    isKnownHost('wallet.example.com', PUBLIC),
    true,
    'PUBLIC_URL’s host, for a proxy that keeps it',
  );
  const rebound = {
    origin: 'http://evil.example',
    host: 'evil.example',
    protocol: 'http',
    checkHost: true,
    ...NONE,
  };
  assert.match(originRefusal(rebound)!, /DNS rebinding/);
  // A rebound name is same-origin to itself: only the Host check stops it.
  assert.equal(originRefusal({ ...rebound, checkHost: false }), undefined);
  const crossSite = { ...rebound, host: 'localhost:8787', checkHost: false };
  assert.match(
    originRefusal(crossSite)!,
    /origin "http:\/\/evil\.example" are not allowed \(ALLOWED_ORIGINS\)/,
  );
});

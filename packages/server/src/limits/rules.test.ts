import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  apiKeySubject,
  BUCKET_NAMES,
  bucketKeyFor,
  DEFAULT_LIMITS_PER_MINUTE,
  ipSubject,
  parseRateLimits,
  restBucketFor,
  userSubject,
  windowMsOf,
} from './rules.ts';

test('defaults are the seed numbers (section 8) and the contract choices (section 5)', () => {
  assert.deepEqual(
    { ...DEFAULT_LIMITS_PER_MINUTE },
    {
      // Seed 8.1, per API key and tool.
      check_balance: 60,
      send_payment: 10,
      get_tx_history: 30,
      request_approval: 5,
      // Seed 8.2, per IP or JWT.
      login: 5,
      signup: 3,
      wallet: 30,
      agent_wallets: 30,
      // Contract section 5.
      health: 600,
      tool_unauthenticated: 60,
      default: 60,
      // Contract section 5: failed logins per account, per 15 minutes.
      login_account: 10,
      // Contract section 8: wrong TOTP and recovery codes per account, per 15 minutes.
      mfa_code: 10,
      // Contract section 5: tools the seed does not name, per key.
      check_payment: 60,
      x402_fetch: 10,
      x402_sign: 10,
      // Contract section 13: paying any 402, per key.
      paid_fetch: 10,
      mpp_sign: 10,
      // Issue 30: POST /mcp's flood guard per key, far above the tools' own limits (185 calls a minute together).
      mcp_transport: 1200,
    },
  );
  assert.deepEqual(Object.keys(DEFAULT_LIMITS_PER_MINUTE).sort(), [...BUCKET_NAMES].sort());
  assert.ok(Object.isFrozen(DEFAULT_LIMITS_PER_MINUTE));
});

test('RATE_LIMITS unset or blank gives the defaults, as a copy the caller may not corrupt', () => {
  for (const text of [undefined, '', '   ']) {
    const limits = parseRateLimits(text);
    assert.deepEqual(limits, { ...DEFAULT_LIMITS_PER_MINUTE });
    limits.login = 1;
    assert.equal(DEFAULT_LIMITS_PER_MINUTE.login, 5);
  }
});

test('RATE_LIMITS overrides only the named limits', () => {
  const limits = parseRateLimits('{"check_balance":100000,"login":1,"default":10000000}');
  assert.equal(limits.check_balance, 100_000);
  assert.equal(limits.login, 1);
  assert.equal(limits.default, 10_000_000);
  assert.equal(limits.send_payment, 10);
  assert.deepEqual(parseRateLimits('{}'), { ...DEFAULT_LIMITS_PER_MINUTE });
});

test('RATE_LIMITS refuses bad input with a message naming the offending key or value', () => {
  const cases: Array<[string, RegExp]> = [
    ['{"chek_balance":5}', /unknown limit name "chek_balance"; known names: check_balance, send_payment/],
    ['{"__proto__":5}', /unknown limit name "__proto__"/],
    ['{"login":0}', /RATE_LIMITS\.login must be between 1 and 10000000, got 0/],
    ['{"login":-3}', /RATE_LIMITS\.login must be between 1 and 10000000, got -3/],
    ['{"login":10000001}', /RATE_LIMITS\.login must be between 1 and 10000000, got 10000001/],
    ['{"login":2.5}', /RATE_LIMITS\.login must be an integer .*got 2\.5/],
    ['{"login":"5"}', /RATE_LIMITS\.login must be an integer .*got "5"/],
    ['{"login":null}', /RATE_LIMITS\.login must be an integer .*got null/],
    ['{"login":1e400}', /RATE_LIMITS\.login must be an integer .*got Infinity/],
    ['[5]', /must be a JSON object such as \{"check_balance":100\}, got \[5\]/],
    ['5', /must be a JSON object.*got 5/],
    ['null', /must be a JSON object.*got null/],
    ['"login"', /must be a JSON object.*got "login"/],
    ['{login:5}', /RATE_LIMITS is not valid JSON \(.*\): \{login:5\}/],
    [`{"login":5,${'"x":1,'.repeat(3000)}}`, /characters long; at most 10000/],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseRateLimits(text), message, `for ${text.slice(0, 40)}`);
  }
});

test('a huge offending value is echoed cut short', () => {
  const text = `{"login":"${'x'.repeat(5000)}"}`;
  assert.throws(
    () => parseRateLimits(text),
    (error: Error) => error.message.length < 300,
  );
});

test('REST routes map to the contract buckets', () => {
  const cases: Array<[string, string, string]> = [
    ['POST', '/api/v1/auth/login', 'login'],
    ['POST', '/api/v1/auth/signup', 'signup'],
    ['GET', '/api/v1/auth/login', 'default'], // only POST is the login bucket
    ['POST', '/api/v1/auth/logout', 'default'],
    ['GET', '/api/v1/auth/me', 'default'],
    ['GET', '/api/v1/wallet', 'wallet'],
    ['GET', '/api/v1/wallet/balance', 'wallet'],
    ['GET', '/api/v1/wallet/deposits', 'wallet'],
    ['HEAD', '/api/v1/wallet/deposits', 'wallet'], // Fastify's automatic HEAD shares the GET bucket
    ['get', '/api/v1/wallet/', 'wallet'],
    ['POST', '/api/v1/wallet/sandbox/deposit', 'default'], // GET /wallet/* only
    ['GET', '/api/v1/walletx', 'default'],
    ['GET', '/api/v1/agent-wallets', 'agent_wallets'],
    ['POST', '/api/v1/agent-wallets', 'agent_wallets'],
    ['GET', '/api/v1/agent-wallets/:id', 'agent_wallets'],
    ['PATCH', '/api/v1/agent-wallets/:id', 'agent_wallets'],
    ['POST', '/api/v1/agent-wallets/:id/fund', 'agent_wallets'],
    ['POST', '/api/v1/agent-wallets/:walletId/keys/:keyId/rotate', 'agent_wallets'],
    ['DELETE', '/api/v1/agent-wallets/:walletId/policies/:id', 'agent_wallets'],
    ['POST', '/api/v1/agent-wallets/:walletId/transactions/:id/approve', 'agent_wallets'],
    ['GET', '/api/v1/agent-walletsx', 'default'],
    ['GET', '/api/v1/health', 'health'],
    ['POST', '/api/v1/health', 'default'],
    ['GET', '/mcp/v1/tools', 'default'],
    ['POST', '/mcp', 'default'],
    ['GET', '/', 'default'],
    ['GET', '*', 'default'],
  ];
  for (const [method, route, bucket] of cases) {
    assert.equal(restBucketFor(method, route), bucket, `${method} ${route}`);
  }
});

test('bucket keys: one per subject, and per method + route for the default bucket', () => {
  assert.equal(
    bucketKeyFor({ bucket: 'agent_wallets', method: 'POST', routeUrl: '/x', subject: userSubject('u1') }),
    'agent_wallets|user:u1',
  );
  assert.equal(
    bucketKeyFor({
      bucket: 'default',
      method: 'post',
      routeUrl: '/api/v1/auth/logout',
      subject: ipSubject('1.2.3.4'),
    }),
    'default|POST /api/v1/auth/logout|ip:1.2.3.4',
  );
  assert.equal(bucketKeyFor({ bucket: 'send_payment', subject: apiKeySubject('k9') }), 'send_payment|key:k9');
  assert.equal(
    bucketKeyFor({ bucket: 'tool_unauthenticated', subject: ipSubject('10.0.0.1') }),
    'tool_unauthenticated|ip:10.0.0.1',
  );
  const logout = bucketKeyFor({ bucket: 'default', method: 'POST', routeUrl: '/a', subject: 'user:1' });
  const me = bucketKeyFor({ bucket: 'default', method: 'GET', routeUrl: '/a', subject: 'user:1' });
  assert.notEqual(logout, me);
  assert.throws(() => bucketKeyFor({ bucket: 'default', subject: 'user:1' }), /needs method and route/);
  assert.throws(() => bucketKeyFor({ bucket: 'login', subject: '' }), /needs a subject/);
});

test('bucket keys stay short whatever the subject or route', () => {
  const long = `ip:${'a'.repeat(10_000)}`;
  const key = bucketKeyFor({
    bucket: 'default',
    method: 'GET',
    routeUrl: `/${'r'.repeat(5000)}`,
    subject: long,
  });
  assert.ok(key.length < 200, `length ${key.length}`);
  const other = bucketKeyFor({ bucket: 'login', subject: `${long}b` });
  assert.notEqual(other, bucketKeyFor({ bucket: 'login', subject: long }));
  const exact = `ip:${'a'.repeat(197)}`;
  assert.equal(bucketKeyFor({ bucket: 'login', subject: exact }), `login|${exact}`);
});

test('IP subjects: IPv4 per address, IPv4-mapped as IPv4, IPv6 per /64', () => {
  assert.equal(ipSubject('203.0.113.7'), 'ip:203.0.113.7');
  assert.equal(ipSubject('::ffff:203.0.113.7'), 'ip:203.0.113.7');
  assert.equal(ipSubject('::ffff:cb00:7107'), 'ip:203.0.113.7');
  assert.equal(ipSubject('2001:db8:1:2:3:4:5:6'), 'ip:2001:db8:1:2::/64');
  assert.equal(ipSubject('2001:db8:1:2::9'), 'ip:2001:db8:1:2::/64');
  assert.equal(ipSubject('2001:DB8:1:2:ffff::1'), 'ip:2001:db8:1:2::/64');
  assert.equal(ipSubject('fe80::1%eth0'), 'ip:fe80:0:0:0::/64');
  assert.equal(ipSubject('::1'), 'ip:0:0:0:0::/64');
  assert.equal(ipSubject('::'), 'ip:0:0:0:0::/64');
  assert.equal(ipSubject('1::'), 'ip:1:0:0:0::/64');
  assert.equal(ipSubject('64:ff9b::192.0.2.33'), 'ip:64:ff9b:0:0::/64');
  // Two hosts of the same /64 share a bucket; different /64s do not.
  assert.equal(ipSubject('2001:db8::1'), ipSubject('2001:db8::dead:beef'));
  assert.notEqual(ipSubject('2001:db8:0:1::1'), ipSubject('2001:db8:0:2::1'));
  // Not an address (a proxy header gone wrong): still a subject, bounded later by bucketKeyFor.
  assert.equal(ipSubject('unknown'), 'ip:unknown');
});

test('every bucket counts over 60 s except those per account (login_account, mfa_code), over 15 minutes', () => {
  for (const bucket of BUCKET_NAMES) {
    const perAccount = bucket === 'login_account' || bucket === 'mfa_code';
    assert.equal(windowMsOf(bucket), perAccount ? 15 * 60_000 : 60_000, bucket);
  }
});

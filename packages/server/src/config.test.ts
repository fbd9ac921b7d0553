import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, ENVIRONMENT, loadConfig } from './config.ts';

function withDataDir(run: (dir: string) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'config-test-'));
  try {
    run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('defaults follow the contract: 127.0.0.1:8787, SQLite, sandbox, the seed limits', () => {
  withDataDir((dir) => {
    const config = loadConfig({ DATA_DIR: dir });
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 8787);
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.redisUrl, undefined);
    assert.equal(config.rail, 'sandbox');
    assert.equal(config.trustedProxies, false);
    assert.equal(config.rateLimitsPerMinute.send_payment, 10);
    assert.equal(config.approvalTtlSeconds, 72 * 3600);
    assert.equal(config.ledgerBatchesInFlight, 1);
  });
});

test('the JWT secret is generated once into DATA_DIR with mode 0600, and JWT_SECRET overrides it', () => {
  withDataDir((dir) => {
    const first = loadConfig({ DATA_DIR: dir });
    const file = join(dir, 'jwt-secret');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, 'address-secret')).mode & 0o777, 0o600);
    assert.match(readFileSync(file, 'utf8'), /^[0-9a-f]{64}$/);
    const second = loadConfig({ DATA_DIR: dir });
    assert.deepEqual(second.jwtSecret, first.jwtSecret, 'the same secret after a restart');
    const explicit = loadConfig({ DATA_DIR: dir, JWT_SECRET: 'an operator chosen secret of enough length!' });
    assert.deepEqual(
      explicit.jwtSecret,
      new TextEncoder().encode('an operator chosen secret of enough length!'),
    );
    assert.deepEqual(explicit.warnings, []);
    assert.match(loadConfig({ DATA_DIR: dir, JWT_SECRET: 'short' }).warnings.join(), /at least 32/);
  });
});

test('a server on a public interface or behind a proxy without PUBLIC_URL is warned: its own URLs need it', () => {
  withDataDir((dir) => {
    const warned = (env: Record<string, string>) =>
      loadConfig({
        DATA_DIR: dir,
        JWT_SECRET: 'an operator chosen secret of enough length!',
        ...env,
      }).warnings.some((w) => /PUBLIC_URL is not set/.test(w));
    assert.equal(warned({}), false, 'loopback: its names are known');
    assert.equal(warned({ HOST: '0.0.0.0' }), true);
    assert.equal(warned({ TRUSTED_PROXIES: '1' }), true);
    assert.equal(warned({ HOST: '0.0.0.0', PUBLIC_URL: 'https://wallet.example.com' }), false);
  });
});

test('invalid settings stop the server with a message naming the variable', () => {
  withDataDir((dir) => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ PORT: 'eighty' }, /PORT must be a whole number/],
      [{ PORT: '70000' }, /PORT must be between/],
      [{ LEDGER_BATCHES_IN_FLIGHT: '0' }, /LEDGER_BATCHES_IN_FLIGHT must be between/],
      [{ RAIL: 'evm' }, /RAIL=evm requires EVM_CHAIN_ID/],
      [{ RAIL: 'evm', EVM_CHAIN_ID: '31337' }, /RAIL=evm requires EVM_RPC_URL/],
      [{ RAIL: 'paypal' }, /RAIL must be "sandbox" or "evm"/],
      [{ TRUST_PROXY: 'yes' }, /TRUST_PROXY must be true or false/],
      [{ RATE_LIMITS: '{"nope":1}' }, /RATE_LIMITS: .*unknown limit name/],
      [{ RATE_LIMITS: '{"login":0}' }, /RATE_LIMITS: .*between 1/],
      [{ RATE_LIMITS: 'not json' }, /RATE_LIMITS: .*not valid JSON/],
      [{ LEDGER_BATCH_MAX: '0' }, /LEDGER_BATCH_MAX must be between 1/],
      [{ PUBLIC_URL: 'wallet.example.com' }, /PUBLIC_URL: .* is not a URL/],
      [{ PUBLIC_URL: 'ftp://wallet.example.com' }, /PUBLIC_URL must be an http:\/\/ or https:\/\/ URL/],
      [{ PUBLIC_URL: 'https://a:b@wallet.example.com' }, /PUBLIC_URL must not carry credentials/],
    ];
    for (const [env, message] of cases) {
      assert.throws(
        () => loadConfig({ DATA_DIR: dir, ...env }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError, `${JSON.stringify(env)} threw ${String(error)}`);
          assert.match(error.message, message);
          return true;
        },
      );
    }
  });
});

test('PUBLIC_URL is optional; an http(s) URL is kept without its trailing slash', () => {
  withDataDir((dir) => {
    assert.equal(loadConfig({ DATA_DIR: dir }).publicUrl, undefined);
    assert.equal(loadConfig({ DATA_DIR: dir, PUBLIC_URL: '' }).publicUrl, undefined);
    const publicUrl = (value: string) => loadConfig({ DATA_DIR: dir, PUBLIC_URL: value }).publicUrl;
    assert.equal(publicUrl('https://wallet.example.com/'), 'https://wallet.example.com');
    assert.equal(publicUrl('http://10.0.0.5:8787/wallet/'), 'http://10.0.0.5:8787/wallet');
  });
});

test('RATE_LIMITS accepts every bucket name of the contract, the tools beyond the seed included', () => {
  withDataDir((dir) => {
    const names = { check_payment: 7, x402_fetch: 3, x402_sign: 4, login_account: 9 };
    const config = loadConfig({ DATA_DIR: dir, RATE_LIMITS: JSON.stringify(names) });
    for (const [name, value] of Object.entries(names)) {
      assert.equal(config.rateLimitsPerMinute[name as keyof typeof names], value, name);
    }
  });
});

test('SMTP_URL and MAIL_FROM: both or neither; no message repeats the password', () => {
  withDataDir((dir) => {
    assert.equal(loadConfig({ DATA_DIR: dir }).smtp, null, 'unset: no email');
    const password = 'p@ss-of-the-mail-relay';
    const url = `smtps://mailer:${encodeURIComponent(password)}@smtp.example.com:465`;
    const smtp = loadConfig({ DATA_DIR: dir, SMTP_URL: url, MAIL_FROM: 'Agent Wallet <w@example.com>' }).smtp;
    assert.deepEqual(smtp, {
      url,
      location: 'smtps://smtp.example.com:465',
      password,
      from: 'Agent Wallet <w@example.com>',
    });
    const refusals: Array<[Record<string, string>, RegExp]> = [
      [{ SMTP_URL: url }, /MAIL_FROM/],
      [{ MAIL_FROM: 'w@example.com' }, /SMTP_URL/],
      [{ SMTP_URL: `https://mailer:${password}@smtp.example.com`, MAIL_FROM: 'w@example.com' }, /smtp:\/\//],
      [{ SMTP_URL: `smtp://mailer:${password}@`, MAIL_FROM: 'w@example.com' }, /SMTP_URL/],
      [{ SMTP_URL: url, MAIL_FROM: 'not an address' }, /MAIL_FROM/],
      [{ SMTP_URL: url, MAIL_FROM: 'w@example.com\r\nBcc: x@evil.test' }, /MAIL_FROM/],
    ];
    for (const [env, message] of refusals) {
      assert.throws(
        () => loadConfig({ DATA_DIR: dir, ...env }),
        (error: unknown) =>
          error instanceof ConfigError &&
          message.test(error.message) &&
          !error.message.includes(password) &&
          !error.message.includes(encodeURIComponent(password)),
        JSON.stringify(env),
      );
    }
  });
});

test('ENVIRONMENT lists exactly the variables loadConfig reads, and its bounds are the ones enforced', () => {
  withDataDir((dir) => {
    const read = new Set<string>();
    const env = new Proxy<NodeJS.ProcessEnv>(
      { DATA_DIR: dir },
      {
        get(target, name) {
          if (typeof name === 'string') read.add(name);
          return target[name as string];
        },
      },
    );
    loadConfig(env);
    // The evm rail's variables are chain/config.ts's, read only with RAIL=evm.
    assert.deepEqual([...read].sort(), Object.keys(ENVIRONMENT).sort());
    for (const [name, spec] of Object.entries(ENVIRONMENT)) {
      if (spec.kind !== 'integer') continue;
      const at = (value: number) => loadConfig({ DATA_DIR: dir, [name]: String(value) });
      assert.doesNotThrow(() => at(spec.min), name);
      assert.doesNotThrow(() => at(spec.max), name);
      assert.throws(
        () => at(spec.max + 1),
        new RegExp(`${name} must be between ${spec.min} and ${spec.max}`),
      );
      if (spec.min > 0) assert.throws(() => at(spec.min - 1), ConfigError);
    }
  });
});

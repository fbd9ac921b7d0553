// Resident memory is bounded (docs/design.md, Memory): a service on the sandbox rail without Redis or SMTP loads
// none of the libraries only the evm rail, a seller's offer, a passkey, Redis or mail need — viem, mppx and
// @x402/core (tens of MB resident together), @simplewebauthn/server, ioredis, nodemailer. They load where they
// are used (the evm rail's module, the first offer read, the first passkey ceremony, the limiter's Redis store,
// the email worker). Checked in a process of its own: it starts the service and lists every package its modules
// were loaded from.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { test } from 'node:test';

const SERVER = resolve(import.meta.dirname, '../src/server.ts');
const CONFIG = resolve(import.meta.dirname, '../src/config.ts');
const CLOCK = resolve(import.meta.dirname, '../src/clock.ts');
const LAZY = [
  'viem',
  'mppx',
  'ox',
  '@x402/core',
  '@x402/extensions',
  'ioredis',
  'nodemailer',
  '@simplewebauthn/server',
];

const CHILD = `
import { registerHooks } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const loaded = new Set();
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    const match = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(resolved.url);
    if (match) loaded.add(match[1]);
    return resolved;
  },
});
const { loadConfig } = await import(${JSON.stringify(CONFIG)});
const { createServer } = await import(${JSON.stringify(SERVER)});
const { systemClock } = await import(${JSON.stringify(CLOCK)});
const dataDir = mkdtempSync(join(tmpdir(), 'lazy-libraries-'));
const server = await createServer(loadConfig({ DATA_DIR: dataDir }), { clock: systemClock, logLevel: false, backgroundIntervalMs: null });
await server.app.ready();
const health = await server.app.inject({ method: 'GET', url: '/api/v1/health' });
await server.close();
rmSync(dataDir, { recursive: true, force: true });
console.log(JSON.stringify({ status: health.statusCode, loaded: [...loaded].sort() }));
`;

test('a sandbox service without Redis or SMTP loads no chain, seller-protocol, Redis or mail library', () => {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, REDIS_URL: '', SMTP_URL: '', DATABASE_URL: '' },
  });
  assert.equal(run.status, 0, run.stderr);
  const { status, loaded } = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}');
  assert.equal(status, 200, run.stdout);
  // The hook sees what it should: the libraries every service needs are in the list.
  for (const name of ['fastify', 'kysely', 'zod']) assert.ok(loaded.includes(name), `${name} not seen`);
  assert.deepEqual(
    LAZY.filter((name) => loaded.includes(name)),
    [],
    'loaded at start although nothing here uses them',
  );
});

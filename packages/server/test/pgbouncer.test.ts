// PostgreSQL through PgBouncer in transaction pooling mode (issue 31), with Debian's pgbouncer started by the test
// on a loopback port: without DATABASE_POOL_MODE=transaction the service refuses to start with a message naming
// it; with it, concurrent payments run through a pool smaller than the service's (statements of one client land
// on several server connections) and the ledger verifies. The schema comes from PgBouncer's connect_query.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { freePort, startServiceProcess } from './support/processes.ts';
import { request } from './support/service-http.ts';
import { POSTGRES_URL, probeService, uniqueName } from './support/services.ts';

const PGBOUNCER = '/usr/sbin/pgbouncer';
const CLI = resolve(import.meta.dirname, '../bin/agent-wallet.js');
const OUTSIDE = `0x${'ab'.repeat(20)}`;
const LIMITS = JSON.stringify({ default: 1_000_000, signup: 1_000_000, send_payment: 1_000_000 });

const pgProbe = await probeService('PostgreSQL', POSTGRES_URL);
const missing = existsSync(PGBOUNCER)
  ? null
  : `${PGBOUNCER} is not installed; skipping (CI=true requires it)`;
if (missing !== null && process.env.CI === 'true')
  throw new Error(`CI=true requires pgbouncer at ${PGBOUNCER}`);
const skip = missing ?? (pgProbe.available ? false : pgProbe.skip);

async function startPgbouncer(dir: string, port: number, schema: string): Promise<ChildProcess> {
  const upstream = new URL(POSTGRES_URL);
  const config = [
    '[databases]',
    `wallet = host=${upstream.hostname} port=${upstream.port || 5432} dbname=${upstream.pathname.slice(1)} user=${upstream.username || 'postgres'} connect_query='SET search_path TO ${schema}'`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = any',
    'pool_mode = transaction',
    'default_pool_size = 3',
    'max_client_conn = 100',
    `logfile = ${join(dir, 'pgbouncer.log')}`,
  ].join('\n');
  writeFileSync(join(dir, 'pgbouncer.ini'), `${config}\n`);
  chmodSync(dir, 0o777);
  // PgBouncer refuses to run as root: -u drops to nobody.
  const args =
    process.getuid?.() === 0 ? ['-u', 'nobody', join(dir, 'pgbouncer.ini')] : [join(dir, 'pgbouncer.ini')];
  const child = spawn(PGBOUNCER, args, { stdio: 'ignore' });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/wallet` });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return child;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

describe('through PgBouncer (transaction pooling)', { skip }, () => {
  let dir: string;
  let bouncer: ChildProcess | undefined;
  let url: string;
  const schema = uniqueName('pgbouncer');
  before(async () => {
    const direct = new pg.Client({ connectionString: POSTGRES_URL });
    await direct.connect();
    await direct.query(`create schema if not exists ${schema}`);
    await direct.end();
    dir = mkdtempSync(join(tmpdir(), 'agent-wallet-pgbouncer-'));
    const port = await freePort();
    bouncer = await startPgbouncer(dir, port, schema);
    url = `postgres://postgres@127.0.0.1:${port}/wallet`;
  });
  after(async () => {
    bouncer?.kill('SIGTERM');
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  test('without DATABASE_POOL_MODE=transaction the service refuses to start, saying what it needs', async () => {
    await assert.rejects(
      startServiceProcess({ DATABASE_URL: url, RATE_LIMITS: LIMITS }),
      /set DATABASE_POOL_MODE=transaction/,
    );
    await assert.rejects(
      startServiceProcess({ DATABASE_URL: url, DATABASE_POOL_MODE: 'transaction', DATABASE_SCHEMA: 'other' }),
      /DATABASE_SCHEMA needs a session setting/,
    );
  });

  test('with it, concurrent payments work through a smaller pool and the ledger verifies', async () => {
    const env = {
      DATABASE_URL: url,
      DATABASE_POOL_MODE: 'transaction',
      DB_POOL_MAX: '8',
      RATE_LIMITS: LIMITS,
    };
    const service = await startServiceProcess(env);
    try {
      const signup = await request(service.url, 'POST', '/api/v1/auth/signup', undefined, {
        email: 'bouncer@example.test',
        password: 'a long enough password',
      });
      const token = signup.body.data.token;
      await request(service.url, 'POST', '/api/v1/wallet/sandbox/deposit', token, { amount: '500' });
      const wallet = (await request(service.url, 'POST', '/api/v1/agent-wallets', token, { label: 'p' })).body
        .data;
      await request(service.url, 'POST', `/api/v1/agent-wallets/${wallet.id}/fund`, token, { amount: '400' });
      const key = (
        await request(service.url, 'POST', `/api/v1/agent-wallets/${wallet.id}/keys`, token, { label: 'k' })
      ).body.data.key;
      const replies = await Promise.all(
        Array.from({ length: 120 }, (_, i) =>
          request(service.url, 'POST', '/mcp/v1/tools/send_payment', key, {
            params: { toAddress: OUTSIDE, amount: '1', memo: `#${i}` },
          }),
        ),
      );
      assert.deepEqual(
        [...new Set(replies.map((r) => r.status))],
        [200],
        JSON.stringify(replies.find((r) => r.status !== 200)?.body),
      );
      const balance = await request(service.url, 'POST', '/mcp/v1/tools/check_balance', key, {});
      assert.equal(balance.body.data.balance, '280.000000');
    } finally {
      await service.stop();
    }
    const verify = spawnSync(process.execPath, [CLI, 'verify-ledger'], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    assert.equal(verify.status, 0, verify.stdout + verify.stderr);
    const direct = new pg.Client({ connectionString: POSTGRES_URL });
    await direct.connect();
    const users = await direct.query(`select count(*)::int as n from ${schema}.users`);
    await direct.end();
    assert.equal(users.rows[0].n, 1, 'the tables live in the schema PgBouncer’s connect_query names');
  });
});

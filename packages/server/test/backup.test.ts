// Backups, restores and the move to PostgreSQL (issue 31), with the real CLI and real service processes: an
// online backup taken while payments run holds every payment acknowledged before it began and restores into an
// empty store of either kind with the ledger verified; a non-empty store is refused; an embedded deployment
// moves into an empty PostgreSQL schema and the service starts there with its sessions, keys, pending
// approvals and idempotent replays working.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { TABLES } from '../src/store/snapshot.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { startServiceProcess } from './support/processes.ts';
import { request } from './support/service-http.ts';
import { POSTGRES_URL, probeService, uniqueName } from './support/services.ts';

const CLI = resolve(import.meta.dirname, '../bin/agent-wallet.js');
const OUTSIDE = `0x${'ab'.repeat(20)}`;
const LIMITS = JSON.stringify({
  default: 1_000_000,
  login: 1_000_000,
  signup: 1_000_000,
  send_payment: 1_000_000,
});
const folders: string[] = [];

function folder(label: string): string {
  const path = mkdtempSync(join(tmpdir(), `agent-wallet-${label}-`));
  folders.push(path);
  return path;
}

/** The CLI as an operator runs it; resolves with its exit code and output. */
function cli(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('exit', (code) => done({ code, output }));
  });
}

function storeEnv(store: 'sqlite' | 'postgres', label: string): Record<string, string> {
  const env: Record<string, string> = { DATA_DIR: folder(label), RATE_LIMITS: LIMITS };
  if (store === 'postgres')
    Object.assign(env, { DATABASE_URL: POSTGRES_URL, DATABASE_SCHEMA: uniqueName(label), DB_POOL_MAX: '5' });
  return env;
}

/** A user with a funded agent wallet and its key, on a running service. */
async function customer(url: string) {
  const signup = await request(url, 'POST', '/api/v1/auth/signup', undefined, {
    email: `backup-${Date.now()}@example.test`,
    password: 'a long enough password',
  });
  const token: string = signup.body.data.token;
  await request(url, 'POST', '/api/v1/wallet/sandbox/deposit', token, { amount: '1000' });
  const wallet = (await request(url, 'POST', '/api/v1/agent-wallets', token, { label: 'payer' })).body.data;
  await request(url, 'POST', `/api/v1/agent-wallets/${wallet.id}/fund`, token, { amount: '900' });
  const key: string = (
    await request(url, 'POST', `/api/v1/agent-wallets/${wallet.id}/keys`, token, { label: 'k' })
  ).body.data.key;
  return { token, walletId: wallet.id as string, key };
}

const pay = (url: string, key: string, memo: string, idempotencyKey?: string) =>
  request(url, 'POST', '/mcp/v1/tools/send_payment', key, {
    params: {
      toAddress: OUTSIDE,
      amount: '1',
      memo,
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    },
  });

after(() => {
  for (const path of folders) rmSync(path, { recursive: true, force: true });
});

// Known before any test is registered: with --test-force-exit, a file whose first tests finish while it still
// awaits this would be ended before its suites ran.
const targets = await storeTargets();
const pg = await probeService('PostgreSQL', POSTGRES_URL);
test('the snapshot names every table of the schema (a new table cannot be left out of backups)', async () => {
  const h: Harness = await startHarness('sqlite', 'backup-tables');
  try {
    const rows = await h.services.store.db
      .selectFrom('sqlite_master' as never)
      .select('name' as never)
      .where('type' as never, '=', 'table' as never)
      .execute();
    const names = (rows as Array<{ name: string }>)
      .map((r) => r.name)
      .filter((n) => !n.startsWith('sqlite_') && !n.startsWith('kysely_'));
    assert.deepEqual([...names].sort(), [...TABLES].sort());
  } finally {
    await h.close();
  }
});

for (const target of targets) {
  describe(`backup and restore on ${target.name}`, { skip: target.skip }, () => {
    test('an online backup holds every payment acknowledged before it; restored, the service runs on it', async () => {
      const env = storeEnv(target.name, 'backup-src');
      const service = await startServiceProcess(env);
      const file = join(folder('backup-file'), 'backup.jsonl');
      let acknowledgedBefore: string[] = [];
      let who: Awaited<ReturnType<typeof customer>>;
      try {
        who = await customer(service.url);
        const acknowledged: string[] = [];
        let running = true;
        const payer = (async () => {
          for (let i = 0; running && i < 400; i += 1) {
            const reply = await pay(service.url, who.key, `#${i}`);
            if (reply.status === 200) acknowledged.push(reply.body.data.txId);
          }
        })();
        await new Promise((r) => setTimeout(r, 300));
        acknowledgedBefore = [...acknowledged];
        const taken = await cli(['backup', '--out', file], env);
        running = false;
        await payer;
        assert.equal(taken.code, 0, taken.output);
        assert.ok(acknowledgedBefore.length > 0, 'payments ran before the backup');
        assert.equal(statSync(file).mode & 0o777, 0o600, 'the backup file holds secrets: 0600');
      } finally {
        await service.stop();
      }
      const restoredEnv = storeEnv(target.name, 'backup-dst');
      const restored = await cli(['restore', '--in', file], restoredEnv);
      assert.equal(restored.code, 0, restored.output);
      assert.match(restored.output, /ledger OK/);
      const again = await cli(['restore', '--in', file], restoredEnv);
      assert.equal(again.code, 1, 'a non-empty store is refused');
      assert.match(again.output, /not empty/);
      const next = await startServiceProcess(restoredEnv);
      try {
        assert.equal(
          (await request(next.url, 'GET', '/api/v1/auth/me', who!.token)).status,
          200,
          'the session survives',
        );
        const history = await request(next.url, 'POST', '/mcp/v1/tools/get_tx_history', who!.key, {
          params: { limit: 100 },
        });
        assert.equal(history.status, 200, 'the API key survives');
        const all: string[] = [];
        for (let page = 1; ; page += 1) {
          const reply = await request(next.url, 'POST', '/mcp/v1/tools/get_tx_history', who!.key, {
            params: { limit: 100, page },
          });
          all.push(...reply.body.data.transactions.map((t: { id: string }) => t.id));
          if (reply.body.data.transactions.length < 100) break;
        }
        for (const id of acknowledgedBefore)
          assert.ok(all.includes(id), `payment ${id} acknowledged before the backup is restored`);
      } finally {
        await next.stop();
      }
    });
  });
}

describe('move from the embedded store to PostgreSQL', { skip: pg.available ? false : pg.skip }, () => {
  test('everything moves, checked table by table, and the service works on the new store', async () => {
    const env = { ...storeEnv('sqlite', 'move-src'), WEBHOOK_ALLOW_PRIVATE: 'true' };
    const service = await startServiceProcess(env);
    let who: Awaited<ReturnType<typeof customer>>;
    let paid: string;
    let held: string;
    try {
      who = await customer(service.url);
      paid = (await pay(service.url, who.key, 'before the move', 'move-once')).body.data.txId;
      await request(service.url, 'POST', `/api/v1/agent-wallets/${who.walletId}/policies`, who.token, {
        type: 'require_approval_above',
        params: { amount: '50' },
      });
      await request(service.url, 'POST', '/api/v1/webhooks', who.token, { url: 'http://127.0.0.1:9/moved' });
      held = (
        await request(service.url, 'POST', '/mcp/v1/tools/request_approval', who.key, {
          params: { toAddress: OUTSIDE, amount: '60' },
        })
      ).body.data.txId;
    } finally {
      await service.stop();
    }
    // DATABASE_SCHEMA in the environment, no --schema: the move goes where the service with that environment
    // will look, and says so.
    const schema = uniqueName('moved');
    const moved = await cli(['move', '--to', POSTGRES_URL], { ...env, DATABASE_SCHEMA: schema });
    assert.equal(moved.code, 0, moved.output);
    assert.match(moved.output, /every table matches row by row and the ledger verifies/);
    assert.ok(moved.output.includes(`schema "${schema}"`), moved.output);
    assert.ok(moved.output.includes(`DATABASE_SCHEMA=${schema}`), moved.output);
    // --schema overrides the environment's.
    const refused = await cli(['move', '--to', POSTGRES_URL, '--schema', schema], {
      ...env,
      DATABASE_SCHEMA: uniqueName('elsewhere'),
    });
    assert.equal(refused.code, 1, 'a non-empty target is refused');
    const onPostgres = await startServiceProcess({
      ...env,
      DATABASE_URL: POSTGRES_URL,
      DATABASE_SCHEMA: schema,
      DB_POOL_MAX: '5',
    });
    try {
      assert.equal(
        (await request(onPostgres.url, 'GET', '/api/v1/auth/me', who!.token)).status,
        200,
        'sessions moved',
      );
      const replay = await pay(onPostgres.url, who!.key, 'before the move', 'move-once');
      assert.equal(replay.body.data.txId, paid!, 'an idempotent replay answers as before');
      const pending = await request(
        onPostgres.url,
        'GET',
        `/api/v1/agent-wallets/${who!.walletId}/transactions/pending`,
        who!.token,
      );
      assert.deepEqual(
        pending.body.data.transactions.map((t: { id: string }) => t.id),
        [held!],
      );
      const approved = await request(
        onPostgres.url,
        'POST',
        `/api/v1/agent-wallets/${who!.walletId}/transactions/${held!}/approve`,
        who!.token,
      );
      assert.equal(approved.body.data.status, 'completed', JSON.stringify(approved.body));
      const hooks = await request(onPostgres.url, 'GET', '/api/v1/webhooks', who!.token);
      assert.deepEqual(
        hooks.body.data.items.map((h: { url: string }) => h.url),
        ['http://127.0.0.1:9/moved'],
        'webhooks moved',
      );
    } finally {
      await onPostgres.stop();
    }
    const verified = await cli(['verify-ledger'], {
      ...env,
      DATABASE_URL: POSTGRES_URL,
      DATABASE_SCHEMA: schema,
    });
    assert.equal(verified.code, 0, verified.output);
    assert.match(verified.output, /ledger OK/);
    const byFlag = await cli(['verify-ledger', '--schema', schema], { ...env, DATABASE_URL: POSTGRES_URL });
    assert.match(byFlag.output, /ledger OK: [1-9]/, 'every command takes --schema');
  });
});

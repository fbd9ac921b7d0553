// The `agent-wallet` CLI as an operator runs it: a real subprocess on the same node, against a real data dir.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { startHarness } from './support/harness.ts';
import { fundedUser } from './support/http.ts';
import { type CliResult, runCli as runCliProcess } from './support/processes.ts';

const SQLITE_FILES = ['agent-wallet.sqlite', 'agent-wallet.sqlite-wal', 'agent-wallet.sqlite-shm'];

/** The CLI on `dataDir`'s embedded store, whatever store this process's environment names. */
function runCli(args: string[], dataDir: string): Promise<CliResult> {
  return runCliProcess(args, { DATA_DIR: dataDir }, [
    'DATABASE_URL',
    'REDIS_URL',
    'RATE_LIMITS',
    'JWT_SECRET',
    'RAIL',
  ]);
}

/** A copy of the data directory's database (and its secrets), to corrupt without touching the original. */
function copyDataDir(from: string): string {
  const to = mkdtempSync(join(tmpdir(), 'agent-wallet-cli-copy-'));
  for (const name of [...SQLITE_FILES, 'jwt-secret', 'address-secret']) {
    if (existsSync(join(from, name))) copyFileSync(join(from, name), join(to, name));
  }
  return to;
}

function corrupt<T>(dataDir: string, change: (db: SqliteDatabase.Database) => T): T {
  const db = new SqliteDatabase(join(dataDir, 'agent-wallet.sqlite'));
  try {
    return change(db);
  } finally {
    db.close();
  }
}

// One command at a time: each is a whole Node process, and CI machines are small.
describe('agent-wallet CLI (sqlite)', () => {
  let dataDir: string;
  let anEmail: string;
  const cleanup: string[] = [];

  before(async () => {
    // Real work through the service: deposits, funds and withdrawals for two users, then a clean shutdown.
    const h = await startHarness('sqlite', 'cli');
    dataDir = h.dataDir;
    cleanup.push(dataDir);
    for (const amount of ['100', '250.5']) {
      const { user, walletId } = await fundedUser(h.app, amount);
      anEmail = user.email;
      assert.equal(
        (await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '40.25' })).status,
        200,
      );
      assert.equal(
        (await user.api.post(`/api/v1/agent-wallets/${walletId}/withdraw`, { amount: '0.25' })).status,
        200,
      );
      assert.equal((await user.api.post('/api/v1/wallet/sandbox/deposit', { amount: '1' })).status, 201);
    }
    await h.server.close(); // the database is closed; the data directory stays for the CLI
  });
  after(() => {
    for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
  });

  test('verify-ledger on a healthy ledger: exit 0 and "ledger OK"', async () => {
    const result = await runCli(['verify-ledger'], dataDir);
    assert.equal(result.code, 0, `stderr: ${result.stderr}`);
    assert.match(result.stdout, /ledger OK/);
    assert.equal(result.stderr, '');
  });

  test('a stored balance changed behind the ledger: non-zero exit naming the account', async () => {
    const copy = copyDataDir(dataDir);
    cleanup.push(copy);
    const accountId = corrupt(copy, (db) => {
      const row = db
        .prepare(
          "select id from accounts where id like '%:available' and balance_micros > 0 order by id limit 1",
        )
        .get() as { id: string };
      db.prepare('update accounts set balance_micros = balance_micros + 1 where id = ?').run(row.id);
      return row.id;
    });
    const result = await runCli(['verify-ledger'], copy);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stderr, /BROKEN/);
    assert.ok(result.stderr.includes(accountId), `stderr does not name ${accountId}: ${result.stderr}`);
    assert.ok(!result.stdout.includes('ledger OK'));
  });

  test('an entry amount changed so its transaction no longer sums to zero: non-zero exit naming the transaction', async () => {
    const copy = copyDataDir(dataDir);
    cleanup.push(copy);
    const transactionId = corrupt(copy, (db) => {
      const row = db
        .prepare(
          "select e.transaction_id as id from entries e join ledger_transactions t on t.id = e.transaction_id where t.kind = 'fund' limit 1",
        )
        .get() as { id: string };
      db.prepare(
        'update entries set amount_micros = amount_micros + 5 where transaction_id = ? and leg = 0',
      ).run(row.id);
      return row.id;
    });
    const result = await runCli(['verify-ledger'], copy);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.ok(
      result.stderr.includes(transactionId),
      `stderr does not name ${transactionId}: ${result.stderr}`,
    );
    assert.match(result.stderr, /not zero/);
  });

  test('--help prints the usage and every command; exit 0', async () => {
    const result = await runCli(['--help'], dataDir);
    assert.equal(result.code, 0, `stderr: ${result.stderr}`);
    assert.match(result.stdout, /Usage: agent-wallet <command>/);
    for (const command of ['serve', 'migrate', 'verify-ledger', 'reset-password'])
      assert.match(result.stdout, new RegExp(command));
  });

  test('migrate on a new data dir applies the migrations, then says it is up to date; exit 0', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'agent-wallet-cli-fresh-'));
    cleanup.push(fresh);
    const first = await runCli(['migrate'], fresh);
    assert.equal(first.code, 0, `stderr: ${first.stderr}`);
    assert.match(first.stdout, /applied .*0001_foundation/);
    const second = await runCli(['migrate'], fresh);
    assert.equal(second.code, 0, `stderr: ${second.stderr}`);
    assert.match(second.stdout, /up to date/);
    assert.ok(existsSync(join(fresh, 'agent-wallet.sqlite')));
  });

  test('reset-password prints a one-time link for that account; an unknown email or none is refused', async () => {
    const copy = copyDataDir(dataDir);
    cleanup.push(copy);
    const result = await runCli(['reset-password', '--email', anEmail], copy);
    assert.equal(result.code, 0, `stderr: ${result.stderr}`);
    assert.match(result.stdout, /http:\/\/localhost:\d+\/reset-password#pwr_[0-9A-Za-z]{40}\n/);
    const stored = corrupt(copy, (db) =>
      db.prepare("select count(*) as n from auth_challenges where kind = 'password_reset'").get(),
    ) as { n: number };
    assert.equal(stored.n, 1);
    const unknown = await runCli(['reset-password', '--email', 'nobody@example.test'], copy);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no account has the email nobody@example.test/);
    const missing = await runCli(['reset-password'], copy);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /needs --email/);
  });

  test('an unknown command: non-zero exit and the usage on stderr', async () => {
    const result = await runCli(['frobnicate'], dataDir);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /unknown command "frobnicate"/);
  });
});

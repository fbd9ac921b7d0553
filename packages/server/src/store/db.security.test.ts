// Issue 10, defect 5: the SQLite database and its -wal/-shm files were created 0644, so in a pre-existing
// 0755 DATA_DIR another local user could read every email and password hash.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { openStore } from './db.ts';

const modeOf = (path: string) => statSync(path).mode & 0o777;

function sqliteOptions(dataDir: string) {
  return {
    databaseUrl: undefined,
    dataDir,
    postgresSchema: undefined,
    postgresPoolSizeMax: 1,
    sqliteBusyTimeoutMs: 1_000,
    connectTimeoutMs: 1_000,
    statementTimeoutMs: 1_000,
    onConnectionError: () => undefined,
  };
}

test('the database, -wal and -shm are 0600 in a world-readable DATA_DIR, whatever the umask', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'perm-'));
  const dataDir = join(parent, 'data');
  mkdirSync(dataDir, { mode: 0o755 });
  chmodSync(dataDir, 0o755);
  const umask = process.umask(0o022);
  try {
    const store = await openStore(sqliteOptions(dataDir));
    await sql`create table t (x integer)`.execute(store.db);
    await sql`insert into t values (1)`.execute(store.db);
    const file = join(dataDir, 'agent-wallet.sqlite');
    for (const path of [file, `${file}-wal`, `${file}-shm`]) {
      assert.ok(existsSync(path), `${path} exists while the store is open`);
      assert.equal(modeOf(path).toString(8), '600', path);
    }
    await store.close();
  } finally {
    process.umask(umask);
    rmSync(parent, { recursive: true, force: true });
  }
});

test('files an older version left 0644 are tightened to 0600 at start', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'perm-old-'));
  const file = join(dataDir, 'agent-wallet.sqlite');
  try {
    const first = await openStore(sqliteOptions(dataDir));
    await sql`create table t (x integer)`.execute(first.db);
    await first.close();
    writeFileSync(`${file}-wal`, '');
    for (const path of [file, `${file}-wal`]) chmodSync(path, 0o644);
    const second = await openStore(sqliteOptions(dataDir));
    assert.equal(modeOf(file).toString(8), '600');
    assert.equal(modeOf(`${file}-wal`).toString(8), '600');
    await second.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

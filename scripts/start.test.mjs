// `npm start` beside a running instance (contract section 11): a second start from the same checkout finds the
// dashboard fresh and builds nothing; a start that finds it stale builds aside and swaps, and the running
// instance answers its dashboard throughout. Runs in a clone of the repository (its own dist/), with this
// checkout's node_modules linked in.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync, utimesSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

const REPO = resolve(import.meta.dirname, '..');

function freePort() {
  return new Promise((done) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

async function until(what, check, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting until ${what}`);
}

const page = (url) =>
  fetch(`${url}/`).then(
    (r) => r.status,
    () => 0,
  );

test('a second start builds nothing; a stale one builds aside while the first keeps serving', {
  timeout: 180_000,
}, async () => {
  const clone = mkdtempSync(join(tmpdir(), 'start-beside-'));
  const started = [];
  const start = async (label) => {
    const port = await freePort();
    const child = spawn(process.execPath, ['scripts/start.mjs'], {
      cwd: clone,
      env: {
        ...process.env,
        PORT: String(port),
        DATA_DIR: join(clone, `data-${label}`),
        LOG_LEVEL: 'warn',
        SHUTDOWN_DRAIN_MS: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    started.push(child);
    const url = `http://127.0.0.1:${port}`;
    await until(`${label} answers`, async () => (await page(url)) === 200, 120_000);
    return { url, output: () => output };
  };
  try {
    assert.equal(spawnSync('git', ['clone', '--quiet', REPO, clone]).status, 0);
    symlinkSync(join(REPO, 'node_modules'), join(clone, 'node_modules'));
    for (const pkg of ['server', 'sdk', 'dashboard']) {
      const modules = join(REPO, 'packages', pkg, 'node_modules');
      if (existsSync(modules)) symlinkSync(modules, join(clone, 'packages', pkg, 'node_modules'));
    }
    const first = await start('first');
    const second = await start('second');
    assert.doesNotMatch(second.output(), /vite|built in/i, 'the dashboard was fresh: nothing built');
    // Make the bundle older than its sources: the next start rebuilds it — aside, not under `first`.
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(join(clone, 'packages/dashboard/dist/index.html'), past, past);
    const statuses = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        statuses.push(await page(first.url));
        await new Promise((r) => setTimeout(r, 25));
      }
    })();
    const third = await start('third');
    polling = false;
    await poller;
    assert.match(third.output(), /built in/i, 'the stale dashboard was rebuilt');
    assert.ok(statuses.length > 10, 'the first instance was asked throughout the build');
    assert.deepEqual([...new Set(statuses)], [200], 'the running instance never lost its dashboard');
    assert.equal(existsSync(join(clone, 'packages/dashboard/dist.next')), false);
  } finally {
    for (const child of started) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    rmSync(clone, { recursive: true, force: true });
  }
});

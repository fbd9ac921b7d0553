// The machine as it comes (issue 31): with a Node older than 22.18 first on PATH (this project's machines ship
// Node 20 at /usr/bin), the README's two commands — unchanged, from a fresh clone — install, start and test: the
// project runs itself on the Node 24 it keeps in $HOME/.cache/node24 (fetched from the npm registry once), and a
// SIGTERM to `npm start` stops the server. Skips with one line where no old Node is installed.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

const CLI = resolve(import.meta.dirname, '../bin/agent-wallet.js');
const REPO = resolve(import.meta.dirname, '../../..');
const SYSTEM_NPM = '/usr/bin/npm';
const SYSTEM_NODE = '/usr/bin/node';
const version = spawnSync(SYSTEM_NODE, ['-v'], { encoding: 'utf8' }).stdout?.trim() ?? '';
const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
const old = version !== '' && (major < 22 || (major === 22 && minor < 18));

const skip =
  old && existsSync(SYSTEM_NPM)
    ? false
    : `no Node older than 22.18 with npm at /usr/bin (found ${version || 'none'}); skipping`;
const OLD_PATH = '/usr/bin:/bin';

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting until ${what}`);
}

const healthy = (url: string) =>
  fetch(`${url}/api/v1/health`).then(
    (r) => r.status === 200,
    () => false,
  );

test('the CLI and the stdio bridge run on an old Node (again, under the project’s Node 24)', { skip }, () => {
  const run = spawnSync(SYSTEM_NODE, [CLI, '--version'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^\d+\.\d+\.\d+\n$/);
});

test('from a fresh clone on an old Node: npm ci, npm start (SIGTERM to npm stops the server), npm test', {
  skip,
  timeout: 240_000,
}, async () => {
  const folder = mkdtempSync(join(tmpdir(), 'old-node-clone-'));
  const env = { ...process.env, PATH: OLD_PATH, CI: '' };
  let started: ReturnType<typeof spawn> | undefined;
  try {
    const clone = spawnSync('git', ['clone', '--quiet', REPO, folder], { encoding: 'utf8' });
    assert.equal(clone.status, 0, clone.stderr);
    const ci = spawnSync(SYSTEM_NPM, ['ci', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: folder,
      encoding: 'utf8',
      env,
      timeout: 180_000,
    });
    assert.equal(ci.status, 0, ci.stdout + ci.stderr);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    started = spawn(SYSTEM_NPM, ['start'], {
      cwd: folder,
      env: { ...env, PORT: String(port), DATA_DIR: join(folder, 'data'), SHUTDOWN_DRAIN_MS: '0' },
      stdio: 'ignore',
      detached: true,
    });
    await waitFor('the service answers', () => healthy(url), 120_000);
    process.kill(started.pid!, 'SIGTERM');
    await waitFor('the server is gone', async () => !(await healthy(url)), 10_000);
    const tested = spawnSync(SYSTEM_NPM, ['test', '--', 'packages/server/src/domain/money.test.ts'], {
      cwd: folder,
      encoding: 'utf8',
      env,
      timeout: 120_000,
    });
    assert.equal(tested.status, 0, tested.stdout + tested.stderr);
    assert.match(tested.stdout, /^\d+ passed, 0 failed$/m);
  } finally {
    // Whatever is left of `npm start` (a failed assertion above) goes with its process group.
    if (started?.pid !== undefined) {
      try {
        process.kill(-started.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(folder, { recursive: true, force: true });
  }
});

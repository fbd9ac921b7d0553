// The CLI (what `npm start` and the MCP stdio bridge run) under a Node too old for it: one line that says which
// Node is needed and how to get it, exit 1, no stack trace. Uses the machine's system node when it is older than
// 22.18 (this project's machines ship Node 20); skips with one line otherwise.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
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

test('the CLI and the stdio bridge on an old Node say what to do in one line', {
  skip: old ? false : `no Node older than 22.18 at ${SYSTEM_NODE} (found ${version || 'none'}); skipping`,
}, () => {
  for (const command of ['mcp', 'serve']) {
    const run = spawnSync(SYSTEM_NODE, [CLI, command], { encoding: 'utf8', timeout: 10_000 });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /^agent-wallet needs Node\.js 22\.18 or newer .*nvm install 24.*\n$/);
    assert.equal(run.stderr.split('\n').length, 2, 'one line');
    assert.doesNotMatch(run.stderr, /\bat \S+ \(/, 'no stack trace');
  }
});

test('npm ci on an old Node stops at once with the Node it needs (engine-strict), installing nothing', {
  skip:
    old && existsSync(SYSTEM_NPM)
      ? false
      : `no Node older than 22.18 with npm at /usr/bin (found ${version || 'none'}); skipping`,
}, () => {
  // The manifests and the lock are all npm reads before it refuses: a copy of them, not the checkout itself.
  const folder = mkdtempSync(join(tmpdir(), 'old-node-ci-'));
  try {
    for (const file of ['package.json', 'package-lock.json', '.npmrc'])
      copyFileSync(join(REPO, file), join(folder, file));
    for (const pkg of ['server', 'sdk', 'dashboard']) {
      mkdirSync(join(folder, 'packages', pkg), { recursive: true });
      copyFileSync(
        join(REPO, 'packages', pkg, 'package.json'),
        join(folder, 'packages', pkg, 'package.json'),
      );
    }
    const run = spawnSync(SYSTEM_NPM, ['ci', '--ignore-scripts', '--offline'], {
      cwd: folder,
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: '/usr/bin:/bin', HOME: folder },
    });
    assert.notEqual(run.status, 0);
    assert.match(run.stderr, /EBADENGINE/);
    assert.match(run.stderr, /Required: \{"node":">=22\.18"\}/);
    assert.ok(
      run.stderr.split('\n').filter((l) => l.includes('EBADENGINE')).length <= 1,
      'one error, not a warning per package',
    );
    assert.equal(existsSync(join(folder, 'node_modules')), false, 'nothing installed');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

// The CLI (what `npm start` and the MCP stdio bridge run) under a Node too old for it: one line that says which
// Node is needed and how to get it, exit 1, no stack trace. Uses the machine's system node when it is older than
// 22.18 (this project's machines ship Node 20); skips with one line otherwise.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { test } from 'node:test';

const CLI = resolve(import.meta.dirname, '../bin/agent-wallet.js');
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

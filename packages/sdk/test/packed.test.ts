// The SDK as a user installs it: built, packed with `npm pack`, installed into an empty folder, imported by its
// package name from plain JavaScript, and used against a real server. Catches what only a tarball shows (a file
// missing from `files`, a broken `exports` map, type declarations pointing at .ts files).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { newAgent } from './support/fixtures.ts';
import { startServer, type TestServer } from './support/server.ts';

const SDK_DIR = resolve(import.meta.dirname, '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const run = (cwd: string, args: string[]) =>
  execFileSync(NPM, args, { cwd, encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] });

describe('the packed SDK in an empty folder', () => {
  let server: TestServer;
  let folder: string;
  before(async () => {
    server = await startServer();
    folder = mkdtempSync(join(tmpdir(), 'sdk-packed-'));
  });
  after(async () => {
    await server?.stop();
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
  });

  test('npm pack → npm install → import "@agent-wallet/sdk" → a payment', async () => {
    run(SDK_DIR, ['run', 'build']);
    const tarball = run(SDK_DIR, ['pack', '--pack-destination', folder, '--silent'])
      .trim()
      .split('\n')
      .pop()!;
    writeFileSync(
      join(folder, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    run(folder, ['install', '--no-audit', '--no-fund', '--offline', join(folder, tarball)]);
    const installed = join(folder, 'node_modules', '@agent-wallet', 'sdk');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    assert.deepEqual(Object.keys(manifest.dependencies ?? {}), [], 'zero runtime dependencies');
    assert.ok(existsSync(join(installed, 'dist', 'index.d.ts')), 'type declarations are shipped');
    assert.ok(!existsSync(join(installed, 'src')), 'only dist is shipped');
    assert.ok(existsSync(join(installed, 'CHANGELOG.md')), 'the changelog is shipped');
    assert.ok(existsSync(join(installed, 'README.md')), 'the README is shipped');
    const { apiKey } = await newAgent(server.url, { fund: '10' });
    writeFileSync(
      join(folder, 'pay.mjs'),
      `import { AgentWalletClient, verifyWebhook, paginate, x402Scheme, mppMethod } from '@agent-wallet/sdk';
       if ([verifyWebhook, paginate, x402Scheme, mppMethod].some((f) => typeof f !== 'function')) throw new Error('exports missing');
       const agent = new AgentWalletClient({ baseUrl: process.argv[2], apiKey: process.argv[3] });
       const paid = await agent.sendPayment({ toAddress: '0x52908400098527886e0f7030069857d2e4169ee7', amount: '1.5' });
       console.log(JSON.stringify({ status: paid.status, balance: (await agent.checkBalance()).balance }));`,
    );
    const out = execFileSync(process.execPath, ['pay.mjs', server.url, apiKey.key], {
      cwd: folder,
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.deepEqual(JSON.parse(out), { status: 'completed', balance: '8.500000' });
  });
});

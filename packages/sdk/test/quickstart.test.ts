// The README's runnable example, run as a user would: a separate Node process against a local server.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { newAgent } from './support/fixtures.ts';
import { startServer, type TestServer } from './support/server.ts';

const EXAMPLE = join(import.meta.dirname, '..', 'examples', 'quickstart.ts');

describe('examples/quickstart.ts', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server?.stop());

  test('sets up a sandbox agent, pays, is denied by its cap, asks for approval', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [EXAMPLE], {
      env: { ...process.env, AGENT_WALLET_URL: server.url, AGENT_WALLET_API_KEY: '' },
      timeout: 20_000,
    });
    assert.match(stdout, /set up sandbox agent wallet \S+ with 40 USDC/);
    assert.match(stdout, /balance: 40\.000000 USDC \(held 0\.000000\)/);
    assert.match(stdout, /paid 2\.500000 to 0x52908400098527886E0F7030069857D2E4169EE7: completed/);
    assert.match(stdout, /denied by policy: .*(cap|limit|above).* \(tx \S+\)/i);
    assert.match(stdout, /approval requested: pending/);
    assert.match(stdout, /done: 4 transactions/);
  });

  test('with AGENT_WALLET_API_KEY it runs the agent part with that key', async () => {
    const { apiKey } = await newAgent(server.url, { fund: '10' });
    const { stdout } = await promisify(execFile)(process.execPath, [EXAMPLE], {
      env: { ...process.env, AGENT_WALLET_URL: server.url, AGENT_WALLET_API_KEY: apiKey.key },
      timeout: 20_000,
    });
    assert.doesNotMatch(stdout, /set up sandbox/);
    assert.match(stdout, /balance: 10\.000000 USDC/);
    assert.match(stdout, /not enough money/);
  });

  test('a wallet too poor for the first payment ends with one line naming the error, not a stack trace', async () => {
    const { apiKey } = await newAgent(server.url, { fund: '1' });
    const run = promisify(execFile)(process.execPath, [EXAMPLE], {
      env: { ...process.env, AGENT_WALLET_URL: server.url, AGENT_WALLET_API_KEY: apiKey.key },
      timeout: 20_000,
    });
    const failed = (await run.then(
      () => assert.fail('the example should exit 1'),
      (error: unknown) => error,
    )) as { code: number; stderr: string };
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /^INSUFFICIENT_BALANCE: .+\(request req_\S+\)\n$/);
    assert.doesNotMatch(failed.stderr, /\bat \S+ \(/, 'no stack trace');
  });
});

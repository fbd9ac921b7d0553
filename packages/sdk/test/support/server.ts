// A real Agent Wallet server in a child process (the CLI the users run), on a free port with a fresh data
// directory. One per test file: `const server = await startServer()` in `before`, `server.stop()` in `after`.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO_DIR = resolve(import.meta.dirname, '../../../..');
const CLI = join(REPO_DIR, 'packages/server/bin/agent-wallet.js');
const STARTUP_TIMEOUT_MS = 20_000;

/** Every bucket of contract section 6, raised so that no test is rate limited by accident. */
export const UNLIMITED: Readonly<Record<string, number>> = Object.freeze({
  check_balance: 100_000,
  send_payment: 100_000,
  get_tx_history: 100_000,
  request_approval: 100_000,
  login: 100_000,
  signup: 100_000,
  wallet: 100_000,
  agent_wallets: 100_000,
  health: 100_000,
  tool_unauthenticated: 100_000,
  default: 100_000,
});

export interface TestServer {
  url: string;
  port: number;
  dataDir: string;
  /** Server output so far (for failure messages). */
  output(): string;
  /** SIGTERM, wait for the exit, remove the data directory. Safe to call twice. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Per-minute limits over UNLIMITED (e.g. `{check_balance: 2}`). */
  rateLimits?: Record<string, number>;
  env?: Record<string, string>;
}

/** A port nobody listens on right now (the OS picks it; we close it and hand the number on). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', done);
  });
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  if (address === null || typeof address === 'string') throw new Error('no port from the OS');
  return address.port;
}

export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  // Two files may pick the same free port in the gap before the server binds it: try again on EADDRINUSE.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (attempt >= 3 || !String(error).includes('EADDRINUSE')) throw error;
    }
  }
}

async function startOnce(options: StartOptions): Promise<TestServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-wallet-sdk-test-'));
  const child = spawn(process.execPath, [CLI, 'serve'], {
    cwd: REPO_DIR,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      RATE_LIMITS: JSON.stringify({ ...UNLIMITED, ...options.rateLimits }),
      DATABASE_URL: '',
      REDIS_URL: '',
      RAIL: 'sandbox',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = once(async () => {
    await terminate(child);
    rmSync(dataDir, { recursive: true, force: true });
  });
  try {
    await waitForHealth(url, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, port, dataDir, output: () => output, stop };
}

async function waitForHealth(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the server exited during start (code ${child.exitCode}):\n${output()}`);
    }
    try {
      const response = await fetch(`${url}/api/v1/health`, { signal: AbortSignal.timeout(1_000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 50));
  }
  throw new Error(`the server did not answer /api/v1/health within ${STARTUP_TIMEOUT_MS} ms:\n${output()}`);
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let promise: Promise<void> | undefined;
  return () => {
    promise ??= fn();
    return promise;
  };
}

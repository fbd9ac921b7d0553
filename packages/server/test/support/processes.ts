// Real processes for tests: throwaway redis-server instances (so outages can be staged without touching
// the machine's Redis) and the service itself started through its CLI, as an operator would.
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRedisClient, waitForRedisReady } from '../../src/limits/redis-store.ts';

const READY_TIMEOUT_MS = 5_000;
const CLI = resolve(import.meta.dirname, '../../bin/agent-wallet.js');

export const hasRedisServerBinary = spawnSync('redis-server', ['--version']).status === 0;

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probeServer = createServer();
    probeServer.once('error', reject);
    probeServer.listen(0, '127.0.0.1', () => {
      const address = probeServer.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probeServer.close(() => resolvePort(port));
    });
  });
}

/** A redis-server on `port` that keeps nothing on disk, like the machine's own. */
export async function startRedisServer(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const probeClient = createRedisClient(`redis://127.0.0.1:${port}`, {
    connectTimeoutMs: 200,
    commandTimeoutMs: 200,
  });
  try {
    if (await waitForRedisReady(probeClient, READY_TIMEOUT_MS)) return child;
  } finally {
    probeClient.disconnect();
  }
  child.kill('SIGKILL');
  throw new Error(`throwaway redis-server on port ${port} did not start`);
}

export async function stopRedisServer(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGKILL');
  await exited;
}

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<number | null>;
  /** SIGKILL: no shutdown, no flush; resolves once the process is gone. */
  kill(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;

/**
 * `agent-wallet serve` in a child process on a free port; resolves once /api/v1/health answers. `cli`: another
 * release's CLI (the upgrade test runs the previous main's).
 */
export async function startServiceProcess(
  env: Record<string, string>,
  cli: string = CLI,
  fixedPort?: number,
): Promise<ServiceProcess> {
  const port = fixedPort ?? (await freePort());
  // This release's bin bounds its own memory (bin/agent-wallet.js): started plainly, as a process manager would.
  // An earlier release's (the upgrade tests) is started as its `npm start` did, with the flags.
  const flags = cli === CLI ? [] : ['--max-semi-space-size=4', '--max-old-space-size=512'];
  const child = spawn(process.execPath, [...flags, cli, 'serve'], {
    env: {
      ...process.env,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'agent-wallet-proc-')),
      LOG_LEVEL: 'warn',
      // Tests stop processes all the time: no drain unless a test asks for one.
      SHUTDOWN_DRAIN_MS: '0',
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
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
  // Generous, as for the CLI: a start takes a second or two, migrations on a busy machine more; this bound only
  // ends a hang, and says so (a test that went on against a dead port failed later as "fetch failed").
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (let ready = false; !ready; ) {
    if (child.exitCode !== null) throw new Error(`service exited early (${child.exitCode}):\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service not healthy after ${START_TIMEOUT_MS} ms:\n${output}`);
    }
    ready = await fetch(`${url}/api/v1/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (!ready) await sleep(100);
  }
  return {
    url,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
      child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((done) => child.once('exit', () => done()));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

// Generous: a command takes about a second; this bound only ends a hang (a busy CI machine must not fail it).
const CLI_TIMEOUT_MS = 90_000;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs this release's CLI with the environment `env` adds to this process's, less `unset`. A process that could
 * not start or was killed (no exit code of its own) is a failure whose stderr says why, so that an assertion on
 * stderr names the cause instead of an empty string.
 */
export function runCli(
  args: string[],
  env: Record<string, string>,
  unset: readonly string[] = [],
): Promise<CliResult> {
  const full: NodeJS.ProcessEnv = { ...process.env };
  for (const name of unset) delete full[name];
  Object.assign(full, env);
  return new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: full, timeout: CLI_TIMEOUT_MS },
      (error, stdout, stderr) => {
        if (error === null) return done({ code: 0, stdout, stderr });
        if (typeof error.code === 'number') return done({ code: error.code, stdout, stderr });
        const why = `[the CLI did not exit by itself: code ${String(error.code)}, signal ${String(error.signal)}, killed ${String(error.killed)}: ${error.message}]`;
        done({ code: -1, stdout, stderr: `${stderr}\n${why}` });
      },
    );
  });
}

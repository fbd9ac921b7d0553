// A throwaway PostgreSQL cluster for outage tests (initdb + pg_ctl on a free port, run as the `postgres`
// user when the tests run as root): tests stop, hang and restart it at will. The machine's shared
// PostgreSQL is never touched. destroy() always stops the cluster and removes its directory.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './processes.ts';

/** The newest installed server's binaries (Debian keeps them out of PATH). */
function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return join(root, versions[0], 'bin');
  }
  const which = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  return which.status === 0 ? which.stdout.trim() : undefined;
}

const BIN_DIR = postgresBinDir();
export const hasPostgresBinaries = BIN_DIR !== undefined;
const asRoot = process.getuid?.() === 0;

export interface PrivatePostgres {
  url: string;
  port: number;
  stop(mode: 'fast' | 'immediate'): void;
  start(): void;
  /** SIGSTOP (true) or SIGCONT (false) every process of the cluster: a hung, not a dead, database. */
  freeze(frozen: boolean): void;
  /** Ends every client connection, as a failover or an administrator would. */
  terminateBackends(): Promise<number>;
  destroy(): void;
}

function run(binary: string, args: string[]): void {
  const path = join(BIN_DIR ?? '', binary);
  const [command, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
  execFileSync(command, argv, { stdio: 'pipe', timeout: 60_000 });
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  if (BIN_DIR === undefined) throw new Error('no PostgreSQL server binaries (initdb, pg_ctl) found');
  const dir = mkdtempSync(join(tmpdir(), 'private-pg-'));
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), 0);
  const dataDir = join(dir, 'data');
  const port = await freePort();
  run('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  const start = () =>
    run('pg_ctl', ['-D', dataDir, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '30', 'start']);
  const stop = (mode: 'fast' | 'immediate') => run('pg_ctl', ['-D', dataDir, '-m', mode, '-w', 'stop']);
  start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    start,
    stop,
    freeze: (frozen) => signalCluster(dataDir, frozen ? 'SIGSTOP' : 'SIGCONT'),
    terminateBackends: () => terminateBackends(url),
    destroy() {
      try {
        signalCluster(dataDir, 'SIGCONT');
        stop('immediate');
      } catch {
        // not running
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postmasterPid(dataDir: string): number | undefined {
  const file = join(dataDir, 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  return Number(readFileSync(file, 'utf8').split('\n')[0]);
}

/** The postmaster and every process it forked (backends, checkpointer, walwriter, …). */
function signalCluster(dataDir: string, signal: NodeJS.Signals): void {
  const root = postmasterPid(dataDir);
  if (root === undefined) return;
  const pids = [root];
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === root) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone
    }
  }
}

async function terminateBackends(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query(
      `select pg_terminate_backend(pid) from pg_stat_activity
       where pid <> pg_backend_pid() and backend_type = 'client backend'`,
    );
    return rows.length;
  } finally {
    await client.end();
  }
}

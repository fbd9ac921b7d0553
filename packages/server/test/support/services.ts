// Real PostgreSQL and Redis for tests: each suite gets its own schema or key prefix so runs never collide.
// Without the servers (a laptop) the suites skip with one clear line; with CI=true they are required.
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';

export const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PROBE_TIMEOUT_MS = 1_000;

export type ServiceProbe = { available: true } | { available: false; skip: string };

/** Whether a TCP service answers; throws under CI=true so a missing service fails the run instead of skipping. */
export async function probeService(name: string, url: string): Promise<ServiceProbe> {
  const { hostname, port } = new URL(url);
  const reachable = await tcpReachable(hostname, Number(port), PROBE_TIMEOUT_MS);
  if (reachable) return { available: true };
  if (process.env.CI === 'true') {
    throw new Error(`CI=true requires ${name} at ${hostname}:${port}, but it is not reachable`);
  }
  return {
    available: false,
    skip: `${name} not reachable at ${hostname}:${port}; skipping (CI=true requires it)`,
  };
}

function tcpReachable(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: timeoutMs });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

/** The run a test belongs to: base36 milliseconds, set by the test runner (or this process's start). */
export const TEST_RUN_ID = process.env.TEST_RUN_ID ?? Date.now().toString(36);

/** A unique, lower-case name for a schema or key prefix: `t_<run>_<label>_<random>`. */
export function uniqueName(label: string): string {
  const clean = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 20);
  return `t_${TEST_RUN_ID}_${clean}_${randomBytes(6).toString('hex')}`;
}

/**
 * Drops test schemas (`t_<run>_…`): those of `runId`, and those of any run older than `staleMs`. The test
 * runner calls it before and after a run, never while suites run: dropping a schema while another suite
 * migrates breaks Kysely's catalog introspection in that suite.
 */
export async function dropTestSchemas(
  runId: string,
  staleMs: number,
  url: string = POSTGRES_URL,
): Promise<number> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>(
      "select nspname from pg_namespace where nspname like 't\\_%'",
    );
    const doomed = rows.map((r) => r.nspname).filter((name) => isDroppable(name, runId, staleMs));
    for (const name of doomed) await client.query(`drop schema if exists ${name} cascade`);
    return doomed.length;
  } finally {
    await client.end();
  }
}

function isDroppable(name: string, runId: string, staleMs: number): boolean {
  if (!/^t_[a-z0-9_]+$/.test(name)) return false;
  const run = name.split('_')[1] ?? '';
  if (run === runId) return true;
  const startedMs = Number.parseInt(run, 36);
  return !Number.isFinite(startedMs) || startedMs < Date.now() - staleMs;
}

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

/** A unique, lower-case name for a schema or key prefix: `t_<label>_<random>`. */
export function uniqueName(label: string): string {
  const clean = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 20);
  return `t_${clean}_${randomBytes(6).toString('hex')}`;
}

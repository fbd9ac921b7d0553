// The dashboard's bundle for `npm start`: built only when missing or older than its sources, and never in place
// under a running server — Vite writes into dist.next/, which then replaces dist/ by rename (the old bundle is
// removed after). A second instance started from the same checkout finds dist/ fresh and touches nothing.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const SOURCES = ['src', 'index.html', 'public', 'vite.config.ts', '../sdk/src'];

function newestMtimeMs(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtimeMs(join(path, entry)));
  return newest;
}

/** Pure of the build itself: is dist/ missing or older than any source? */
export function dashboardIsStale(dashboardDir) {
  const index = join(dashboardDir, 'dist', 'index.html');
  if (!existsSync(index)) return true;
  const sources = SOURCES.map((p) => join(dashboardDir, p)).filter((p) => existsSync(p));
  return Math.max(...sources.map(newestMtimeMs)) > statSync(index).mtimeMs;
}

/** Builds aside and swaps; returns the exit status of the build (0 when nothing needed building). */
export function buildDashboardIfStale(dashboardDir, npmCommand) {
  if (!dashboardIsStale(dashboardDir)) return 0;
  const next = join(dashboardDir, 'dist.next');
  const previous = join(dashboardDir, `dist.previous-${process.pid}`);
  rmSync(next, { recursive: true, force: true });
  const [command, prefixArgs] = npmCommand;
  const build = spawnSync(
    command,
    [...prefixArgs, 'exec', '--', 'vite', 'build', '--outDir', 'dist.next', '--emptyOutDir'],
    {
      cwd: dashboardDir,
      stdio: 'inherit',
    },
  );
  if (build.status !== 0) return build.status ?? 1;
  const dist = join(dashboardDir, 'dist');
  if (existsSync(dist)) renameSync(dist, previous);
  renameSync(next, dist);
  rmSync(previous, { recursive: true, force: true });
  return 0;
}

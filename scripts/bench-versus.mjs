#!/usr/bin/env node
// `npm run bench:versus -- <ref> [<ref>…]`: this checkout against other commits with every build's service running
// side by side, scenario by scenario in interleaved rounds (packages/server/bench/versus.ts). Where `bench:ab`
// runs the whole benchmark once per side and compares each side's ratios to references of its own run, this
// compares the services' rates directly, minutes of the machine's drift apart at most a few seconds. Each other
// commit is checked out in a git worktree under the system's temp folder (installed with npm ci), removed after.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareOther } from './bench-ab.mjs';
import { onSuitableNode } from './node-runtime.mjs';

await onSuitableNode(fileURLToPath(import.meta.url));

const ROOT = resolve(import.meta.dirname, '..');
const REFS_MAX = 4;
const git = (...args) => execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8' }).trim();

const refs = process.argv.slice(2);
if (refs.length === 0 || refs.length > REFS_MAX) {
  console.error(`usage: npm run bench:versus -- <git ref> [up to ${REFS_MAX} refs]`);
  process.exit(2);
}
const others = refs.map((ref) => {
  const short = git('rev-parse', '--short', ref);
  return { short, folder: join(tmpdir(), `agent-wallet-versus-${short}`), ref };
});
try {
  for (const other of others) prepareOther(other.ref, other.folder, { dashboard: false });
  const builds = others.map((o) => `${o.short}=${join(o.folder, 'packages/server/bin/agent-wallet.js')}`);
  const done = spawnSync(
    process.execPath,
    [
      join(ROOT, 'packages/server/bench/versus.ts'),
      ...builds,
      `this (${git('rev-parse', '--short', 'HEAD')})=this`,
    ],
    { cwd: join(ROOT, 'packages/server'), stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' },
  );
  if (done.status !== 0) throw new Error('the side-by-side benchmark failed');
  const header = `# Side by side: this checkout against ${refs.join(', ')}\n\nMeasured ${new Date().toISOString().slice(0, 16)}Z on ${cpus().length} cores (${cpus()[0]?.model ?? 'cpu'}), Node ${process.version}, ${process.env.VERSUS_DATABASE_URL === undefined ? 'SQLite' : `PostgreSQL${process.env.VERSUS_REDIS_URL === undefined ? '' : ' + Redis'}`}; every service running at once, each scenario's rounds interleaved (the order rotated each round).\n`;
  const text = `${header}\n${done.stdout.trim()}\n`;
  console.log(text);
  const dir = join(ROOT, 'packages/server/bench/results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `versus-${new Date().toISOString().slice(0, 16).replace(/[:T]/g, '-')}.md`);
  writeFileSync(file, text);
  console.error(`written to ${file}`);
} finally {
  for (const other of others) {
    spawnSync('git', ['-C', ROOT, 'worktree', 'remove', '--force', other.folder]);
    rmSync(other.folder, { recursive: true, force: true });
  }
}

#!/usr/bin/env node
// `npm run bench:ab -- <ref> [rounds]`: this checkout against another commit, in alternating rounds. Each round runs
// the whole benchmark (SQLite) once for the other commit and once for this one; every figure compared is the
// benchmark's own ratio to a reference measured in the same run (the raw ledger ceiling, a bare route…), and the
// verdict per scenario is the median over rounds of this checkout's ratio divided by the other's. Alternating
// rounds put both sides under the same drift of the machine's speed. The other commit is checked out in a git
// worktree under the system's temp folder (installed with npm ci, its dashboard built), and removed after.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const ROUNDS_MAX = 10;
const git = (...args) => execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8' }).trim();

/** The rows of every table in a benchmark's report: scenario → ratio (null where it has none). */
export function ratiosOf(report) {
  const ratios = new Map();
  let columns = null;
  for (const line of report.split('\n')) {
    if (!line.startsWith('|')) {
      columns = null;
      continue;
    }
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    if (columns === null) {
      columns = cells;
      continue;
    }
    if (cells.every((cell) => /^:?-+:?$/.test(cell))) continue;
    const ratio = cells[columns.indexOf('ratio')]?.replace(/×$/, '');
    const value = ratio === undefined || ratio === '—' ? null : Number(ratio);
    ratios.set(cells[columns.indexOf('scenario')], Number.isFinite(value) ? value : null);
  }
  return ratios;
}

/** The other commit checked out at `other` and installed; its dashboard built unless `dashboard` is false. */
export function prepareOther(ref, other, { dashboard = true } = {}) {
  if (!existsSync(other)) git('worktree', 'add', '--detach', other, ref);
  const run = (cmd, args) => {
    const done = spawnSync(cmd, args, { cwd: other, stdio: 'inherit' });
    if (done.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed in ${other}`);
  };
  run('npm', ['ci', '--no-audit', '--no-fund']);
  if (dashboard) run('npm', ['run', 'build', '-w', 'packages/dashboard']);
}

function benchOnce(folder) {
  const done = spawnSync('node', ['scripts/bench.mjs'], {
    cwd: folder,
    env: { ...process.env, BENCH_STORES: 'sqlite' },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (done.status !== 0) throw new Error(`the benchmark failed in ${folder}: ${done.stderr.slice(-2000)}`);
  return ratiosOf(done.stdout);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

function report(results, ref, rounds) {
  const lines = [
    `# A/B: ${git('rev-parse', '--short', 'HEAD')} against ${git('rev-parse', '--short', ref)}`,
    '',
    `${rounds} alternating rounds of the SQLite benchmark, ${new Date().toISOString().slice(0, 16)}Z. Each figure is a`,
    "scenario's ratio to its in-run reference; the last column is the median over rounds of this/that.",
    '',
    '| scenario | that commit | this commit | this / that |',
    '|---|---:|---:|---:|',
  ];
  for (const [scenario, { a, b }] of results) {
    // A ratio printed as 0.00× (the login flood's, below 0.005× of the bare route) has no digits to divide by.
    const pairs = a.map((value, i) => (value !== null && value > 0 && b[i] !== null ? b[i] / value : null));
    const shown = (values) => values.map((v) => (v === null ? '—' : `${v.toFixed(2)}×`)).join(', ');
    const paired = pairs.filter((p) => p !== null);
    lines.push(
      `| ${scenario} | ${shown(a)} | ${shown(b)} | ${paired.length === 0 ? '—' : median(paired).toFixed(3)} |`,
    );
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const ref = process.argv[2];
  const rounds = Number(process.argv[3] ?? 2);
  if (ref === undefined || !Number.isInteger(rounds) || rounds < 1 || rounds > ROUNDS_MAX) {
    console.error(`usage: npm run bench:ab -- <git ref> [rounds, 1-${ROUNDS_MAX}, default 2]`);
    process.exit(2);
  }
  const other = join(tmpdir(), `agent-wallet-bench-ab-${git('rev-parse', '--short', ref)}`);
  const resultsDir = join(ROOT, 'packages/server/bench/results');
  const before = new Set(existsSync(resultsDir) ? readdirSync(resultsDir) : []);
  prepareOther(ref, other);
  const results = new Map();
  try {
    for (let round = 0; round < rounds; round += 1) {
      const sides = [
        ['a', other],
        ['b', ROOT],
      ];
      for (const [side, folder] of sides) {
        console.error(`round ${round + 1}/${rounds}: ${side === 'a' ? ref : 'this checkout'}`);
        for (const [scenario, ratio] of benchOnce(folder)) {
          const entry = results.get(scenario) ?? { a: [], b: [] };
          entry[side].push(ratio);
          results.set(scenario, entry);
        }
      }
    }
  } finally {
    git('worktree', 'remove', '--force', other);
    rmSync(other, { recursive: true, force: true });
    // Each round's own report is a step of this one, not a result of its own.
    for (const name of readdirSync(resultsDir)) if (!before.has(name)) rmSync(join(resultsDir, name));
  }
  const text = report(results, ref, rounds);
  console.log(text);
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `ab-${new Date().toISOString().slice(0, 16).replace(/[:T]/g, '-')}.md`);
  writeFileSync(file, `${text}\n`);
  console.error(`written to ${file}`);
}

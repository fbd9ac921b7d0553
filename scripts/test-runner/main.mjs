#!/usr/bin/env node
// The one test command (`npm test`): every node:test file of every package, each in a process of its own with a
// hard time limit, then the dashboard's Vitest suite; ends with one plain line "N passed, N failed" (CI reads
// it). Exit code 1 on any failure. A file past its limit is killed and reported with the tests it had not
// finished; a file that leaves a handle open fails naming it. The run always reaches its summary line.
//
//   npm test                      every file
//   npm test -- payments mcp      files whose path contains any of the words
//   npm test -- path/to/x.mjs     that file, even outside the default patterns (the runner's own fixtures)
import { spawnSync } from 'node:child_process';
import { existsSync, globSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { longestFirst } from './order.mjs';
import { killAll, runFile } from './run-file.mjs';
import { vitestFailures } from './tally.mjs';

const FILE_TIMEOUT_MS = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 5 * 60_000);
const DASHBOARD_TIMEOUT_MS = 5 * 60_000;
const PATTERNS = ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'scripts/**/*.test.mjs'];

const args = process.argv.slice(2);
const files = selectFiles(args);
const counts = { passed: 0, failed: 0, skipped: 0 };
// The failed files with their failed tests' names, repeated just above the summary line: a long run's output is
// often read from its end (CI keeps only the last lines), where the file-by-file lines of a failure are long gone.
const failedFiles = [];
const RECAP_FAILURES_MAX = 20;

function selectFiles(words) {
  const all = PATTERNS.flatMap((pattern) => globSync(pattern)).sort();
  if (words.length === 0) return all;
  const direct = words.filter((w) => /\.(m?[jt]s)$/.test(w) && existsSync(w) && !all.includes(w));
  const matched = all.filter((f) => words.some((w) => f.includes(w)));
  return [...new Set([...matched, ...direct])];
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    killAll();
    process.exit(130);
  });
}

// How long each file took in a full run (seconds), to start the longest first: alphabetical order left the
// slowest files (the fuzzer, the crash and outage suites) for the end, with one worker idle while they finished.
// `TEST_DURATIONS_WRITE=1 npm test` rewrites it from the run.
const DURATIONS_FILE = join(import.meta.dirname, 'durations.json');
const durationsS = existsSync(DURATIONS_FILE) ? JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')) : {};
const measuredS = {};

// Files share PostgreSQL and Redis through schemas and key prefixes of their own; two at a time on 2 cores.
async function runNodeTests() {
  const queue = longestFirst(files, durationsS);
  const worker = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      report(await runFile(file, { timeoutMs: FILE_TIMEOUT_MS }));
    }
  };
  const concurrency = Math.min(Math.max(2, availableParallelism()), Math.max(1, files.length));
  await Promise.all(Array.from({ length: concurrency }, worker));
}

function report({ file, counts: c, failures, durationMs, output }) {
  measuredS[file] = Math.round(durationMs / 100) / 10;
  counts.passed += c.passed;
  counts.failed += c.failed;
  counts.skipped += c.skipped;
  const mark = c.failed > 0 ? '✖' : '✔';
  const skipped = c.skipped > 0 ? `, ${c.skipped} skipped` : '';
  console.log(
    `${mark} ${file} (${c.passed} passed, ${c.failed} failed${skipped}) ${(durationMs / 1000).toFixed(1)} s`,
  );
  if (c.failed === 0) return;
  failedFiles.push({ file, names: failures.map((failure) => failure.name) });
  for (const failure of failures) {
    console.log(`  ✖ ${failure.name}\n${indent(failure.detail, '      ')}`);
  }
  if (output.trim() !== '') console.log(`  output of ${file} (its last lines):\n${indent(output, '  | ')}`);
}

const indent = (text, prefix) =>
  String(text)
    .trimEnd()
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');

// PostgreSQL suites each migrate a schema of their own; they are dropped here, before and after the run,
// and never while suites run (a drop during another suite's migration breaks its catalog introspection).
// Schemas carry the run id, so a run never drops those of another run in progress (only stale ones).
const runId = Date.now().toString(36);
process.env.TEST_RUN_ID = runId;
// V8's compiled code for every module (TypeScript after type stripping too), kept on disk: each test file is a
// process of its own that loads the server and its libraries, and the cache saves about a third of that work
// (measured: 1.5 s → 0.95 s of CPU per process). Keyed by content, so an edited file is compiled afresh.
process.env.NODE_COMPILE_CACHE ??= join(import.meta.dirname, '../../node_modules/.cache/node-compile-cache');
const STALE_SCHEMA_MS = 2 * 60 * 60 * 1000;

async function dropTestSchemas() {
  try {
    const {
      dropTestSchemas: drop,
      probeService,
      POSTGRES_URL,
    } = await import('../../packages/server/test/support/services.ts');
    const probe = await probeService('PostgreSQL', POSTGRES_URL).catch(() => ({ available: false }));
    if (probe.available) await drop(runId, STALE_SCHEMA_MS);
  } catch (error) {
    console.log(`could not drop test schemas: ${error instanceof Error ? error.message : error}`);
  }
}

const DASHBOARD_UNIT = 'packages/dashboard (Vitest unit tests)';

/** The dashboard's Vitest suite (jsdom components need Vite's JSX transform); its JSON report gives the counts. */
function runDashboardUnitTests() {
  const dir = mkdtempSync(join(tmpdir(), 'dashboard-unit-'));
  const summaryFile = join(dir, 'summary.json');
  const result = spawnSync('npm', ['run', '--silent', 'test:unit', '--workspace', 'packages/dashboard'], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DASHBOARD_TEST_SUMMARY_FILE: summaryFile },
    timeout: DASHBOARD_TIMEOUT_MS,
    killSignal: 'SIGKILL',
  });
  try {
    if (result.error !== undefined) throw result.error;
    const summary = JSON.parse(readFileSync(summaryFile, 'utf8'));
    counts.passed += summary.numPassedTests;
    counts.failed += summary.numFailedTests + (summary.numRuntimeErrorTestSuites ?? 0);
    counts.skipped += summary.numPendingTests + summary.numTodoTests;
    const names = vitestFailures(summary);
    if (result.status !== 0 && summary.numFailedTests === 0) {
      counts.failed += 1;
      names.push(`Vitest ended with exit code ${result.status}`);
    }
    if (names.length > 0) failedFiles.push({ file: DASHBOARD_UNIT, names });
  } catch (error) {
    const why = `the dashboard unit tests produced no summary: ${error instanceof Error ? error.message : error}`;
    console.log(why);
    counts.failed += 1;
    failedFiles.push({ file: DASHBOARD_UNIT, names: [why] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function printFailedRecap() {
  if (failedFiles.length === 0) return;
  console.log(`failed (details above, under each file's ✖ line):`);
  for (const { file, names } of failedFiles.slice(0, RECAP_FAILURES_MAX)) {
    console.log(`  ✖ ${file}`);
    for (const name of names.slice(0, RECAP_FAILURES_MAX)) console.log(`      - ${name.split('\n')[0]}`);
  }
  if (failedFiles.length > RECAP_FAILURES_MAX) {
    console.log(`  … and ${failedFiles.length - RECAP_FAILURES_MAX} more files`);
  }
}

const runDashboardUnit = args.length === 0 || args.some((w) => w.includes('dashboard'));

await dropTestSchemas();
await runNodeTests();
await dropTestSchemas();
if (process.env.TEST_DURATIONS_WRITE === '1') {
  writeFileSync(DURATIONS_FILE, `${JSON.stringify(measuredS, Object.keys(measuredS).sort(), 2)}\n`);
}
if (runDashboardUnit) runDashboardUnitTests();
printFailedRecap();
if (counts.skipped > 0) console.log(`${counts.skipped} skipped`);
console.log(`${counts.passed} passed, ${counts.failed} failed`);
process.exitCode = counts.failed > 0 ? 1 : 0;

#!/usr/bin/env node
// The one test command (`npm test`): runs every node:test file of every package, then the dashboard's
// Vitest unit and component suite, and ends with one plain line "N passed, N failed" (CI reads it). Exit code 1 on any failure.
import { spawnSync } from 'node:child_process';
import { globSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

const filters = process.argv.slice(2);
const patterns = ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts'];
const allFiles = patterns.flatMap((pattern) => globSync(pattern)).sort();
const files = filters.length === 0 ? allFiles : allFiles.filter((f) => filters.some((x) => f.includes(x)));

// Each file runs in its own process; files share PostgreSQL and Redis through their own schema/prefix.
const concurrencyFiles = Math.max(2, availableParallelism());
const counts = { passed: 0, failed: 0, skipped: 0 };

async function runNodeTests() {
  if (files.length === 0) return;
  const stream = run({ files, concurrency: concurrencyFiles, timeout: 5 * 60_000 });
  stream.on('test:pass', (event) => count(event, 'passed'));
  stream.on('test:fail', (event) => count(event, 'failed'));
  await new Promise((resolve, reject) => {
    const out = stream.compose(spec);
    out.pipe(process.stdout, { end: false });
    out.on('end', resolve);
    out.on('error', reject);
  });
}

function count(event, outcome) {
  if (event.details?.type === 'suite') return;
  if (event.skip || event.todo) {
    counts.skipped += 1;
    return;
  }
  counts[outcome] += 1;
}

// PostgreSQL suites each migrate a schema of their own; they are dropped here, before and after the run,
// and never while suites run (a drop during another suite's migration breaks its catalog introspection).
// Schemas carry the run id, so a run never drops those of another run in progress (only stale ones).
const runId = Date.now().toString(36);
process.env.TEST_RUN_ID = runId;
const STALE_SCHEMA_MS = 2 * 60 * 60 * 1000;

async function dropTestSchemas() {
  try {
    const {
      dropTestSchemas: drop,
      probeService,
      POSTGRES_URL,
    } = await import('../packages/server/test/support/services.ts');
    const probe = await probeService('PostgreSQL', POSTGRES_URL).catch(() => ({ available: false }));
    if (probe.available) await drop(runId, STALE_SCHEMA_MS);
  } catch (error) {
    console.log(`could not drop test schemas: ${error instanceof Error ? error.message : error}`);
  }
}

/** The dashboard's Vitest suite (jsdom components need Vite's JSX transform); its JSON report gives the counts. */
function runDashboardUnitTests() {
  const dir = mkdtempSync(join(tmpdir(), 'dashboard-unit-'));
  const summaryFile = join(dir, 'summary.json');
  const result = spawnSync('npm', ['run', '--silent', 'test:unit', '--workspace', 'packages/dashboard'], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DASHBOARD_TEST_SUMMARY_FILE: summaryFile },
  });
  try {
    const summary = JSON.parse(readFileSync(summaryFile, 'utf8'));
    counts.passed += summary.numPassedTests;
    counts.failed += summary.numFailedTests + (summary.numRuntimeErrorTestSuites ?? 0);
    counts.skipped += summary.numPendingTests + summary.numTodoTests;
    if (result.status !== 0 && summary.numFailedTests === 0) counts.failed += 1;
  } catch {
    console.log('the dashboard unit tests produced no summary');
    counts.failed += 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const runDashboardUnit =
  filters.length === 0 || filters.some((f) => 'packages/dashboard'.includes(f) || f.includes('dashboard'));

await dropTestSchemas();
await runNodeTests();
await dropTestSchemas();
if (runDashboardUnit) runDashboardUnitTests();
if (counts.skipped > 0) console.log(`${counts.skipped} skipped`);
console.log(`${counts.passed} passed, ${counts.failed} failed`);
process.exitCode = counts.failed > 0 ? 1 : 0;

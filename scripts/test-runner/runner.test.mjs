// The runner itself: a hanging file is killed within its time limit and reported with the tests it had not
// finished, a leaking file fails naming its open handles, a clean file passes, and the summary line comes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { leakedResources } from './leaks.mjs';
import { longestFirst } from './order.mjs';
import { tallyEvents, unfinishedTests, vitestFailures } from './tally.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const LIMIT_MS = 4_000;

function runFixtures(names) {
  const startedMs = Date.now();
  const result = spawnSync(
    process.execPath,
    ['scripts/test.mjs', ...names.map((n) => `scripts/fixtures/${n}.fixture.mjs`)],
    {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, TEST_FILE_TIMEOUT_MS: String(LIMIT_MS) },
    },
  );
  return { ...result, elapsedMs: Date.now() - startedMs, lines: result.stdout.trimEnd().split('\n') };
}

describe('the test runner', () => {
  test('kills a hanging file at its limit, names its unfinished tests, and still prints the summary', () => {
    const run = runFixtures(['hangs', 'clean']);
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.ok(run.elapsedMs < LIMIT_MS + 15_000, `took ${run.elapsedMs} ms`);
    assert.match(run.stdout, /hangs\.fixture\.mjs: killed after the 4 s time limit/);
    assert.match(run.stdout, /tests it had not finished:\n\s+- a suite that hangs\n\s+-\s+never finishes/);
    assert.match(run.stdout, /✔ scripts\/fixtures\/clean\.fixture\.mjs \(1 passed, 0 failed\)/);
    // The failed file is named again just above the summary line, where a run read from its end shows it.
    const recap = run.lines.indexOf("failed (details above, under each file's ✖ line):");
    assert.ok(recap > 0, run.stdout);
    assert.equal(run.lines[recap + 1], '  ✖ scripts/fixtures/hangs.fixture.mjs');
    assert.equal(run.lines.at(-1), '2 passed, 1 failed');
  });

  test('fails a file that passes its tests but leaves a timer and a server open, naming both', () => {
    const run = runFixtures(['leaks']);
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /left handles open/);
    assert.match(run.stdout, /open handles: .*TCPServerWrap/);
    assert.match(run.stdout, /open handles: .*Timeout/);
    assert.equal(run.lines.at(-1), '1 passed, 1 failed');
  });

  test('a clean file passes with exit code 0', () => {
    const run = runFixtures(['clean']);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.doesNotMatch(run.stdout, /failed \(details above/);
    assert.equal(run.lines.at(-1), '1 passed, 0 failed');
  });
});

describe('order (pure)', () => {
  test('the longest known file first; an unknown one as an average file; ties alphabetical', () => {
    const files = ['a.test.ts', 'b.test.ts', 'c.test.ts', 'd.test.ts', 'e.test.ts'];
    const durationsS = { 'a.test.ts': 2, 'b.test.ts': 120, 'c.test.ts': 30, 'e.test.ts': 2 };
    assert.deepEqual(longestFirst(files, durationsS), [
      'b.test.ts',
      'c.test.ts',
      'd.test.ts',
      'a.test.ts',
      'e.test.ts',
    ]);
    assert.deepEqual(longestFirst(files, {}), files);
  });
});

describe('tally (pure)', () => {
  const clean = { code: 0, signal: null, timedOut: false };
  const ctx = { file: 'f.test.ts', exit: clean, leaked: [], timeoutMs: 1_000 };

  test("a Vitest report's failed tests are named; a suite that could not run, by its file", () => {
    const summary = {
      testResults: [
        {
          name: '/d/unit/a.spec.ts',
          status: 'failed',
          assertionResults: [
            { fullName: 'a passes', status: 'passed' },
            { fullName: 'a breaks', status: 'failed' },
          ],
        },
        { name: '/d/unit/b.spec.ts', status: 'failed', message: 'SyntaxError', assertionResults: [] },
        {
          name: '/d/unit/c.spec.ts',
          status: 'passed',
          assertionResults: [{ fullName: 'c', status: 'passed' }],
        },
      ],
    };
    assert.deepEqual(vitestFailures(summary), ['a breaks', '/d/unit/b.spec.ts: SyntaxError']);
    assert.deepEqual(vitestFailures({}), []);
  });

  test('counts tests, not suites; skips and todos apart', () => {
    const events = [
      { type: 'test:pass', name: 'a', nesting: 1 },
      { type: 'test:pass', name: 'b', nesting: 1, skip: true },
      { type: 'test:fail', name: 'c', nesting: 1, error: 'boom' },
      { type: 'test:pass', name: 'd', nesting: 1, todo: true },
      { type: 'test:fail', name: 'suite', nesting: 0, suite: true, failureType: 'subtestsFailed' },
    ];
    const { counts, failures } = tallyEvents(events, ctx);
    assert.deepEqual(counts, { passed: 1, failed: 1, skipped: 2 });
    assert.deepEqual(failures, [{ name: 'c', detail: 'boom' }]);
  });

  test("a suite's failed before() hook is shown with its error, its cancelled tests counted", () => {
    const events = [
      { type: 'test:fail', name: 't', nesting: 1, error: 'cancelled' },
      { type: 'test:fail', name: 's', nesting: 0, suite: true, failureType: 'hookFailed', error: 'boom' },
      { type: 'test:fail', name: 'p', nesting: 0, suite: true, failureType: 'subtestsFailed', error: 'x' },
    ];
    const { counts, failures } = tallyEvents(events, ctx);
    assert.equal(counts.failed, 1);
    assert.deepEqual(failures.at(-1), { name: 's (the suite itself)', detail: 'boom' });
    assert.equal(failures.length, 2);
  });

  test('a crash outside any test is a failure; a failing exit with failed tests adds none', () => {
    const crashed = { ...ctx, exit: { code: 1, signal: null, timedOut: false } };
    assert.equal(tallyEvents([], crashed).counts.failed, 1);
    const failedTest = [{ type: 'test:fail', name: 'x', nesting: 0, error: 'e' }];
    assert.equal(tallyEvents(failedTest, crashed).counts.failed, 1);
  });

  test('unfinished tests are those dequeued and never completed', () => {
    const events = [
      { type: 'test:dequeue', name: 's', nesting: 0 },
      { type: 'test:dequeue', name: 'a', nesting: 1 },
      { type: 'test:complete', name: 'a', nesting: 1 },
      { type: 'test:dequeue', name: 'b', nesting: 1 },
    ];
    assert.deepEqual(unfinishedTests(events), ['s', '  b']);
  });

  test('leaks are a multiset difference, less the handles the caller holds', () => {
    assert.deepEqual(leakedResources(['PipeWrap'], ['PipeWrap', 'Timeout', 'Timeout'], ['Timeout']), [
      'Timeout',
    ]);
    assert.deepEqual(leakedResources(['PipeWrap', 'PipeWrap'], ['PipeWrap']), []);
  });
});

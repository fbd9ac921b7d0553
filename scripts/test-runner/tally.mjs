// Pure: turns one file's reporter events and how its process ended into counts and named failures.

/**
 * @param events lines written by reporter.mjs
 * @param ended {exit: {code, signal, timedOut}, leaked: string[], timeoutMs, file}
 */
export function tallyEvents(events, { file, exit, leaked, timeoutMs }) {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  const failures = [];
  for (const event of events) {
    if (event.type === 'test:fail' && event.suite && event.failureType !== 'subtestsFailed') {
      // A suite's own failure (a before() hook that threw): its tests count as cancelled; say why.
      failures.push({ name: `${event.name} (the suite itself)`, detail: event.error ?? '(no error detail)' });
    }
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.suite) continue;
    if (event.skip || event.todo) counts.skipped += 1;
    else if (event.type === 'test:pass') counts.passed += 1;
    else {
      counts.failed += 1;
      failures.push({ name: event.name, detail: event.error ?? '(no error detail)' });
    }
  }
  const ending = endingFailure(events, { file, exit, leaked, timeoutMs, failedSoFar: counts.failed });
  if (ending !== undefined) {
    counts.failed += 1;
    failures.push(ending);
  }
  return { counts, failures };
}

function endingFailure(events, { file, exit, leaked, timeoutMs, failedSoFar }) {
  if (exit.timedOut) {
    const unfinished = unfinishedTests(events);
    const names =
      unfinished.length === 0 ? '(none had started)' : unfinished.map((n) => `  - ${n}`).join('\n');
    return {
      name: `${file}: killed after the ${Math.round(timeoutMs / 1000)} s time limit`,
      detail: `tests it had not finished:\n${names}`,
    };
  }
  if (leaked.length > 0) {
    return {
      name: `${file}: finished its tests but left handles open`,
      detail: `open handles: ${leaked.join(', ')} (close every server, pool, client, timer and child process in after())`,
    };
  }
  if (exit.code !== 0 && failedSoFar === 0) {
    return {
      name: `${file}: the process ended with ${exit.signal ?? `exit code ${exit.code}`} and no failed test`,
      detail: 'see its output below (an error outside any test, or a crash)',
    };
  }
  return undefined;
}

/** Tests that began running (dequeued) and never completed, innermost last. */
export function unfinishedTests(events) {
  const running = [];
  for (const event of events) {
    const key = `${event.nesting}\u0000${event.name}`;
    if (event.type === 'test:dequeue') running.push({ key, name: event.name, nesting: event.nesting });
    if (event.type === 'test:complete') {
      const i = running.findLastIndex((r) => r.key === key);
      if (i !== -1) running.splice(i, 1);
    }
  }
  return running.map((r) => `${'  '.repeat(r.nesting)}${r.name}`);
}

/** The failed tests' names in a Vitest JSON report (Jest's shape); a suite that could not run is named by its file. */
export function vitestFailures(summary) {
  return (summary.testResults ?? []).flatMap((suite) => {
    const failed = (suite.assertionResults ?? [])
      .filter((result) => result.status === 'failed')
      .map((result) => result.fullName);
    if (failed.length === 0 && suite.status === 'failed')
      return [`${suite.name}: ${suite.message ?? 'failed'}`];
    return failed;
  });
}

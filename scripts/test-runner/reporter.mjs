// A node:test reporter that writes each event the runner needs as one JSON line: which tests began and stopped running, passed,
// failed or were skipped, with the failure's message and stack. The runner reads these lines even from a file
// it had to kill, to name the tests that never finished.
export default async function* ndjson(source) {
  for await (const event of source) {
    const line = eventLine(event);
    if (line !== undefined) yield `${JSON.stringify(line)}\n`;
  }
}

function eventLine({ type, data }) {
  // dequeue: the test began running; complete: it stopped running (both in execution order).
  if (type === 'test:dequeue' || type === 'test:complete')
    return { type, name: data.name, nesting: data.nesting };
  if (type !== 'test:pass' && type !== 'test:fail') return undefined;
  const { details } = data;
  return {
    type,
    name: data.name,
    nesting: data.nesting,
    suite: details?.type === 'suite',
    skip: data.skip !== undefined && data.skip !== false,
    todo: data.todo !== undefined && data.todo !== false,
    durationMs: details?.duration_ms,
    error: type === 'test:fail' ? describeError(details?.error) : undefined,
    // 'hookFailed' on a suite is the reason its tests were cancelled: the runner shows it.
    failureType: type === 'test:fail' ? details?.error?.failureType : undefined,
  };
}

function describeError(error) {
  if (error === undefined || error === null) return undefined;
  // node:test wraps what a test threw in ERR_TEST_FAILURE; the cause is what the author wants to read.
  const cause = error.code === 'ERR_TEST_FAILURE' && error.cause !== undefined ? error.cause : error;
  if (cause instanceof Error) return cause.stack ?? `${cause.name}: ${cause.message}`;
  return String(cause);
}

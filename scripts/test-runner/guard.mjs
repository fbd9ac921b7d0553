// Preloaded into every test file's process (node --import). Files run with --test-force-exit, so node calls
// process.exit() once every known test has finished, even while something still holds the event loop.
// Before that exit goes through, this guard gives closing handles a short grace, then names every handle the
// file opened and left open (a timer, a socket, a child process): a leak fails its file the day it is written.
import { writeFileSync } from 'node:fs';
import { leakedResources } from './leaks.mjs';

const GRACE_MS = Number(process.env.TEST_LEAK_GRACE_MS ?? 2_000);
const POLL_MS = 25;
const reportFile = process.env.TEST_GUARD_REPORT_FILE;

// stdio handles open lazily; open them now so they count as the process's own, not the file's.
void process.stdout;
void process.stderr;
const baseline = process.getActiveResourcesInfo();
const realExit = process.exit.bind(process);
let exiting = false;

process.exit = (code) => {
  if (exiting) return realExit(code);
  exiting = true;
  const deadlineMs = Date.now() + GRACE_MS;
  const poll = () => {
    // The timer running this poll is listed while it runs: it is ours, not the file's.
    const leaked = leakedResources(baseline, process.getActiveResourcesInfo(), ['Timeout']);
    if (leaked.length === 0) return realExit(code);
    if (Date.now() < deadlineMs) return void setTimeout(poll, POLL_MS);
    process.stderr.write(`the file finished its tests but left open: ${leaked.join(', ')}\n`);
    if (reportFile !== undefined) writeFileSync(reportFile, JSON.stringify({ leaked }));
    return realExit(1);
  };
  setTimeout(poll, 0);
};

#!/usr/bin/env node
// `npm start`: on a Node the project can run on (node-runtime.mjs fetches Node 24 when the machine's is older),
// build the dashboard if it is missing or stale (aside, then swapped in: never under a running server), then
// run the server as a child that gets this process's signals — so a SIGTERM to `npm start` (docker stop, a
// supervisor) drains and stops the server instead of orphaning it.
import { fileURLToPath } from 'node:url';
import { buildDashboardIfStale } from './dashboard-build.mjs';
import { onSuitableNode, runForwarding } from './node-runtime.mjs';

await onSuitableNode(fileURLToPath(import.meta.url));

const npm = process.env.npm_execpath;
const npmCommand = npm?.endsWith('.js') ? [process.execPath, [npm]] : ['npm', []];
const dashboard = fileURLToPath(new URL('../packages/dashboard', import.meta.url));
const built = buildDashboardIfStale(dashboard, npmCommand);
if (built !== 0) process.exit(built);

// V8 flags: see packages/server/bin/agent-wallet.js.
await runForwarding(process.execPath, [
  '--max-semi-space-size=4',
  '--max-old-space-size=512',
  'packages/server/bin/agent-wallet.js',
  'serve',
  ...process.argv.slice(2),
]);

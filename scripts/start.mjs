#!/usr/bin/env node
// `npm start`: on a Node the project can run on (node-runtime.mjs fetches Node 24 when the machine's is older),
// build what needs building, then run the server as a child that gets this process's signals — so a SIGTERM to
// `npm start` (docker stop, a supervisor) drains and stops the server instead of orphaning it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { onSuitableNode, runForwarding } from './node-runtime.mjs';

await onSuitableNode(fileURLToPath(import.meta.url));

const npm = process.env.npm_execpath;
const [command, prefixArgs] = npm?.endsWith('.js') ? [process.execPath, [npm]] : ['npm', []];
const build = spawnSync(command, [...prefixArgs, 'run', 'build', '--workspaces', '--if-present'], {
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);

// V8 flags: see packages/server/bin/agent-wallet.js.
await runForwarding(process.execPath, [
  '--max-semi-space-size=4',
  '--max-old-space-size=512',
  'packages/server/bin/agent-wallet.js',
  'serve',
  ...process.argv.slice(2),
]);

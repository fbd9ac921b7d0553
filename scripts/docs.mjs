#!/usr/bin/env node
// `npm run docs` (dev server) and `npm run docs:build` (static HTML in docs/.vitepress/dist), on a Node the project
// can run on (node-runtime.mjs fetches Node 24 when the machine's is older: the reference generator is
// TypeScript). First docs/reference/ is written from the code (packages/server/scripts/docs-reference.ts), then
// VitePress serves or builds the site; a build ends with the anchor check (scripts/docs-check.mjs).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { onSuitableNode, runForwarding } from './node-runtime.mjs';

await onSuitableNode(fileURLToPath(import.meta.url));

const mode = process.argv[2] === 'build' ? 'build' : 'dev';
const root = fileURLToPath(new URL('..', import.meta.url));
const vitepress = fileURLToPath(new URL('../node_modules/vitepress/bin/vitepress.js', import.meta.url));
const step = (args) => spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' }).status ?? 1;

const generated = step(['packages/server/scripts/docs-reference.ts']);
if (generated !== 0) process.exit(generated);
if (mode === 'dev') {
  // The dev server runs until stopped: it gets this process's signals.
  await runForwarding(process.execPath, [vitepress, 'dev', 'docs', ...process.argv.slice(3)], { cwd: root });
} else {
  const built = step([vitepress, 'build', 'docs']);
  if (built !== 0) process.exit(built);
  process.exit(step(['scripts/docs-check.mjs']));
}

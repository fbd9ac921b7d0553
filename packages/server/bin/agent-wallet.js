#!/usr/bin/env -S node --max-semi-space-size=4 --max-old-space-size=512
// Runs the TypeScript sources directly (Node's type stripping): no build step for the server.
// V8 flags (here and in `npm start`; V8 takes them only at start), each measured under load with the same
// throughput: --max-semi-space-size=4 took resident memory from about 240 to 188 MB; --max-old-space-size=512
// makes V8 collect instead of growing the heap towards its default limit of several GB (PostgreSQL, internal
// payments: 234–290 → 168 MB, heap 98–134 → 65 MB). 512 MB is 4× the largest live heap measured; everything the
// service keeps in memory is bounded (queues, caches, bodies). Run node with a larger value to raise it.
// On a Node older than the project needs (the stdio bridge is started by desktop clients with whatever `node` they
// find), run again under the Node 24 the project keeps in $HOME/.cache/node24 (fetched from the npm registry once).
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  const { fileURLToPath } = await import('node:url');
  const { onSuitableNode } = await import('../../../scripts/node-runtime.mjs');
  await onSuitableNode(fileURLToPath(import.meta.url));
}
await import('../src/cli.ts');

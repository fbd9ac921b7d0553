#!/usr/bin/env -S node --max-semi-space-size=4 --max-old-space-size=512
// Runs the TypeScript sources directly (Node's type stripping): no build step for the server.
// V8 flags (here and in `npm start`; V8 takes them only at start), each measured under load with the same
// throughput: --max-semi-space-size=4 took resident memory from about 240 to 188 MB; --max-old-space-size=512
// makes V8 collect instead of growing the heap towards its default limit of several GB (PostgreSQL, internal
// payments: 234–290 → 168 MB, heap 98–134 → 65 MB). 512 MB is 4× the largest live heap measured; everything the
// service keeps in memory is bounded (queues, caches, bodies). Run node with a larger value to raise it.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `agent-wallet needs Node.js 22.18 or newer (24 LTS recommended); this is ${process.version}. ` +
      'Get it with `nvm install 24`, or `npm install --prefix "$HOME/.cache/node24" node@24` and run ' +
      '$HOME/.cache/node24/node_modules/.bin/node instead of node\n',
  );
  process.exit(1);
}
await import('../src/cli.ts');

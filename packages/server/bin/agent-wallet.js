#!/usr/bin/env -S node --max-semi-space-size=4 --max-old-space-size=512
// Runs the TypeScript sources directly (Node's type stripping): no build step for the server.
// V8 flags (here and in `npm start`; V8 takes them only at start), each measured under load with the same
// throughput: --max-semi-space-size=4 took resident memory from about 240 to 188 MB; --max-old-space-size=512
// makes V8 collect instead of growing the heap towards its default limit of several GB (PostgreSQL, internal
// payments: 234–290 → 168 MB, heap 98–134 → 65 MB). 512 MB is 4× the largest live heap measured; everything the
// service keeps in memory is bounded (queues, caches, bodies). Run node with a larger value to raise it.
// `serve` applies them itself, however it is started (a process manager, `node` directly, a container's CMD):
// without them it runs again in place (process.execve: the same process id, so a supervisor's signals still
// reach it) with them. Measured with `node agent-wallet.js serve` under login and check_balance load, the
// dashboard served: 297-318 MB resident without the flags, 215-221 MB with them.
// On a Node older than the project needs (the stdio bridge is started by desktop clients with whatever `node` they
// find), run again under the Node 24 the project keeps in $HOME/.cache/node24 (fetched from the npm registry once).
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  const { fileURLToPath } = await import('node:url');
  const { onSuitableNode } = await import('../../../scripts/node-runtime.mjs');
  await onSuitableNode(fileURLToPath(import.meta.url));
}
const V8_BOUNDS = ['--max-semi-space-size=4', '--max-old-space-size=512'];
// glibc's allocator, on Linux: without these, the memory of finished argon2 hashes (19 MiB each) and of the
// libuv threads' arenas stays resident. A fixed mmap threshold gives every large block back when it is freed
// (glibc otherwise raises the threshold after the first such free, and later hashes come from a heap it keeps);
// two arenas instead of eight per core. Measured under login and check_balance load: peak resident memory
// 229–241 → 222–229 MB. Set either yourself to choose another value.
const ALLOCATOR_ENV =
  process.platform === 'linux' ? { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' } : {};
if (process.argv[2] === 'serve' && process.env.AGENT_WALLET_V8_BOUNDED !== '1') {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  const missing = V8_BOUNDS.filter((flag) => !given.some((g) => g.startsWith(flag.split('=')[0])));
  const env = Object.entries(ALLOCATOR_ENV).filter(([name]) => process.env[name] === undefined);
  if ((missing.length > 0 || env.length > 0) && typeof process.execve === 'function') {
    const { fileURLToPath } = await import('node:url');
    const argv = [...missing, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)];
    process.execve(process.execPath, [process.execPath, ...argv], {
      ...process.env,
      ...Object.fromEntries(env),
      AGENT_WALLET_V8_BOUNDED: '1',
    });
  }
}
await import('../src/cli.ts');

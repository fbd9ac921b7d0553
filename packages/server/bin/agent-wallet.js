#!/usr/bin/env node
// Runs the TypeScript sources directly (Node's type stripping): no build step for the server.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `agent-wallet needs Node.js 22.18 or newer (24 LTS recommended); this is ${process.version}\n`,
  );
  process.exit(1);
}
await import('../src/cli.ts');

#!/usr/bin/env node
// `npm test`: checks the Node.js version first (an old Node gets a message saying what to do, not an import
// error), then runs the runner (test-runner/main.mjs). Arguments pass through.
await import('./check-node.mjs');
await import('./test-runner/main.mjs');

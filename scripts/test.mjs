#!/usr/bin/env node
// `npm test`: on a Node the project can run on (node-runtime.mjs fetches Node 24 when the machine's is older),
// runs the runner (test-runner/main.mjs). Arguments pass through.
import { fileURLToPath } from 'node:url';
import { onSuitableNode } from './node-runtime.mjs';

await onSuitableNode(fileURLToPath(import.meta.url));
await import('./test-runner/main.mjs');

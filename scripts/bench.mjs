#!/usr/bin/env node
// `npm run bench` on a Node the project can run on (see node-runtime.mjs).
import { fileURLToPath } from 'node:url';
import { onSuitableNode } from './node-runtime.mjs';

await onSuitableNode(fileURLToPath(import.meta.url));
await import('../packages/server/bench/index.ts');

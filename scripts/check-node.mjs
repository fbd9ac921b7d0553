#!/usr/bin/env node
// `npm ci` runs this first (preinstall): on a Node older than the project needs it installs Node 24 from the npm
// registry into $HOME/.cache/node24 (node-runtime.mjs), which `npm start` and `npm test` then run on. The
// dependencies' native parts are Node-API (ABI-stable), so installing them under the old Node is fine.
import { cachedNode, isSuitable } from './node-runtime.mjs';

if (!isSuitable(process.versions.node)) {
  const node = cachedNode();
  process.stderr.write(`npm start and npm test will run on ${node}\n`);
}

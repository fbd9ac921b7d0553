#!/usr/bin/env node
// After `tsc`: the .js files already import './x.js' (rewriteRelativeImportExtensions), but tsc leaves
// './x.ts' in the .d.ts files (microsoft/TypeScript#61037). TypeScript accepts that, some editors and
// tools do not: point the declarations at the files that ship.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const RELATIVE_TS = /((?:from|import)\s*\(?\s*['"])(\.{1,2}\/[^'"]+?)\.ts(['"])/g;

for (const name of readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
  if (!name.endsWith('.d.ts')) continue;
  const file = join(dist, name);
  const text = readFileSync(file, 'utf8');
  const rewritten = text.replace(RELATIVE_TS, '$1$2.js$3');
  if (rewritten !== text) writeFileSync(file, rewritten);
}

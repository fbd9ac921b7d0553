#!/usr/bin/env node
// The server's floors as the imports make them: which floor each source file stands on, and which floors each
// floor imports, read by dependency-cruiser (.dependency-cruiser.cjs) from the product's sources (tests left out).
// The floors table of docs/design.md (between `<!-- floors:start -->` and `<!-- floors:end -->`) is this script's
// output:
//   node scripts/floors.mjs          checks the rules and that the page's table is the one the imports make
//   node scripts/floors.mjs --write  rewrites the page's table (`npm run floors`)
// `npm run lint` runs the check; packages/server/test/architecture.test.ts runs it in `npm test` too.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
/** What the rules are checked on: every package's sources (server, SDK and its examples, dashboard). */
export const SOURCES = [
  'packages/server/src',
  'packages/sdk/src',
  'packages/sdk/examples',
  'packages/dashboard/src',
];
const SERVER = 'packages/server/src/';
/** The page that holds the floors table. */
const DESIGN_DOC_NAME = 'docs/design.md';
const DESIGN_DOC = join(ROOT, DESIGN_DOC_NAME);
const START = '<!-- floors:start -->';
const END = '<!-- floors:end -->';

/**
 * The server's floors, top to bottom: a floor should import only floors below it. `files` are paths under
 * packages/server/src/ (a folder ends in `/`). Every source file stands on exactly one floor.
 */
export const FLOORS = [
  {
    name: 'entry',
    files: ['server.ts', 'cli.ts', 'operate.ts'],
    what: 'the process: `serve`, the CLI, operations',
  },
  {
    name: 'app',
    files: ['app/'],
    what: 'the Fastify app and its OpenAPI document: assembles routes, MCP, tools and the HTTP hooks',
  },
  { name: 'routes', files: ['routes/'], what: 'one file per REST route: schema, handler, OpenAPI text' },
  { name: 'mcp', files: ['mcp/'], what: 'the MCP server (stdio, Streamable HTTP)' },
  { name: 'tools', files: ['tools/'], what: 'the agent tools: one registry for REST, MCP and the SDK' },
  { name: 'http', files: ['http/'], what: 'auth and rate-limit hooks, errors, schemas, route helpers' },
  {
    name: 'services',
    files: ['services/', 'metrics.ts'],
    what: 'the use cases, x402, and the books of the rail',
  },
  {
    name: 'payments',
    files: ['payments/'],
    what: 'ways to pay a seller: one folder per method (offers, terms, credential), registered in one place',
  },
  { name: 'config', files: ['config.ts', 'config-environment.ts'], what: 'the environment, parsed once' },
  { name: 'chain', files: ['chain/'], what: 'the evm rail: an adapter the services call' },
  { name: 'ledger', files: ['ledger/'], what: 'the only writer of balances (group commit)' },
  { name: 'limits', files: ['limits/'], what: 'the rate limiter (memory, Redis)' },
  { name: 'store', files: ['store/'], what: 'Kysely over SQLite or PostgreSQL, the migrations' },
  {
    name: 'domain',
    files: ['domain/', 'errors.ts', 'clock.ts', 'log-scrub.ts', 'version.ts'],
    what: 'pure decisions (money, policies, batches) and what every floor shares',
  },
];

/** The floor a server source file stands on (the most specific pattern wins), or undefined. */
export function floorOf(path) {
  if (!path.startsWith(SERVER)) return undefined;
  const rel = path.slice(SERVER.length);
  let best;
  for (const floor of FLOORS) {
    for (const pattern of floor.files) {
      const hit = pattern.endsWith('/') ? rel.startsWith(pattern) : rel === pattern;
      if (hit && (best === undefined || pattern.length > best.length))
        best = { floor, length: pattern.length };
    }
  }
  return best?.floor;
}

/** dependency-cruiser's JSON result over `sources` (relative to `cwd`) with `config`. */
export function cruise({ cwd = ROOT, config = CONFIG, sources = SOURCES } = {}) {
  const bin = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');
  const run = spawnSync(process.execPath, [bin, ...sources, '--config', config, '--output-type', 'json'], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.stdout.trim() === '') throw new Error(`dependency-cruiser failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

const isTest = (path) => /[.](test|spec)[.]tsx?$/.test(path) || path.includes('/test/');

/** Server source files that stand on no floor (a new folder must be given one). */
export function unplaced(result) {
  return result.modules
    .map((m) => m.source)
    .filter((s) => s.startsWith(SERVER) && !isTest(s) && /[.]tsx?$/.test(s) && floorOf(s) === undefined);
}

/** Per floor, the floors it imports, each with the imports that point up (by file), from the product's sources. */
export function floorImports(result) {
  const rank = new Map(FLOORS.map((f, i) => [f.name, i]));
  const imports = new Map(FLOORS.map((f) => [f.name, new Map()]));
  for (const module of result.modules) {
    const from = floorOf(module.source);
    if (from === undefined || isTest(module.source)) continue;
    for (const dependency of module.dependencies) {
      const to = floorOf(dependency.resolved);
      if (to === undefined || to === from) continue;
      const targets = imports.get(from.name);
      if (!targets.has(to.name)) targets.set(to.name, []);
      if (rank.get(to.name) < rank.get(from.name)) {
        targets
          .get(to.name)
          .push(`${module.source.slice(SERVER.length)} → ${dependency.resolved.slice(SERVER.length)}`);
      }
    }
  }
  return imports;
}

/** The floors table of docs/design.md: generated, never edited by hand. */
export function floorsTable(result, config = loadConfig()) {
  const rank = new Map(FLOORS.map((f, i) => [f.name, i]));
  const imports = floorImports(result);
  const rows = [['floor', 'files (`packages/server/src/`)', 'what', 'imports, by floor (↑ points up)']];
  const upward = [];
  for (const floor of FLOORS) {
    const targets = [...imports.get(floor.name)].sort(([a], [b]) => rank.get(a) - rank.get(b));
    const listed = targets.map(([name, up]) => (up.length > 0 ? `↑ ${name}` : name)).join(', ') || '—';
    for (const [, up] of targets) upward.push(...up);
    rows.push([floor.name, floor.files.map((f) => `\`${f}\``).join(', '), floor.what, listed]);
  }
  const lines = [
    START,
    '<!-- Generated by `node scripts/floors.mjs --write` from the imports; checked by `npm run lint` and `npm test`. -->',
    '',
    ...markdownTable(rows),
    '',
  ];
  if (upward.length === 0) lines.push('Every import points down.');
  else {
    lines.push(`Imports that still point up (${upward.length}):`, '');
    for (const up of upward.sort()) lines.push(`- \`${up}\``);
  }
  lines.push('', 'Rules (`.dependency-cruiser.cjs`, in `npm run lint` and `npm test`):', '');
  for (const rule of config.forbidden) lines.push(`- \`${rule.name}\`: ${rule.comment}`);
  lines.push(END);
  return lines.join('\n');
}

/** A table padded the way Biome formats Markdown (docs/design.md is formatted by `biome check`). */
function markdownTable(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => [...row[i]].length)));
  const line = (cells) =>
    `| ${cells.map((cell, i) => cell + ' '.repeat(widths[i] - [...cell].length)).join(' | ')} |`;
  return [line(rows[0]), line(widths.map((w) => '-'.repeat(w))), ...rows.slice(1).map(line)];
}

export function loadConfig(path = CONFIG) {
  return createRequire(import.meta.url)(path);
}

/** The page's current block between the markers, or null. */
export function floorsBlock(text = readFileSync(DESIGN_DOC, 'utf8')) {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) return null;
  return text.slice(start, end + END.length);
}

function main() {
  const write = process.argv.includes('--write');
  const result = cruise();
  const problems = [];
  for (const violation of result.summary.violations) {
    const path = violation.cycle
      ? [violation.from, ...violation.cycle.map((c) => c.name ?? c)].join(' → ')
      : `${violation.from} → ${violation.to}`;
    problems.push(`${violation.rule.name}: ${path}`);
  }
  for (const file of unplaced(result))
    problems.push(`no floor: ${file} (add it to FLOORS in scripts/floors.mjs)`);
  const table = floorsTable(result);
  const text = readFileSync(DESIGN_DOC, 'utf8');
  const block = floorsBlock(text);
  if (block === null) problems.push(`${DESIGN_DOC_NAME} has no ${START} … ${END} block`);
  else if (block !== table) {
    if (write) {
      writeFileSync(DESIGN_DOC, text.replace(block, table));
      console.log(`${DESIGN_DOC_NAME}: floors table rewritten`);
    } else problems.push(`${DESIGN_DOC_NAME}: the floors table is out of date (npm run floors rewrites it)`);
  }
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) process.exit(1);
  console.log(
    `floors: ${result.summary.totalCruised} modules, no violations, ${DESIGN_DOC_NAME} table up to date`,
  );
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();

// The floors (issue 32): dependency-cruiser with the repository's rules (.dependency-cruiser.cjs) finds no
// violation in the real sources and the floors table of docs/design.md is the one the imports make (scripts/floors.mjs,
// also run by `npm run lint`); and the same rules do fail on a small tree that breaks each of them once — a
// cycle, domain/ importing services/ (a type-only import: those count too), and the other floors' whitelists
// (arrows back up: http/ → tools/, tools/ → routes/, app/ → the entry).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';

const ROOT = resolve(import.meta.dirname, '../../..');
const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/** Files of the broken tree, by path; each breaks one rule, or none (the test file, the pure module). */
const BROKEN_TREE: Record<string, string> = {
  // domain-is-pure, by a type-only import.
  'packages/server/src/domain/pure.ts':
    "import type { Thing } from '../services/thing.ts';\nexport const nothing: Thing | null = null;\n",
  // A test beside the domain may reach into any floor (the floor rules are about the product).
  'packages/server/src/domain/pure.test.ts':
    "import { loop } from '../services/thing.ts';\nexport const t = loop;\n",
  // no-circular: thing.ts -> loop.ts -> thing.ts (reported once).
  'packages/server/src/services/thing.ts':
    "import { other } from './loop.ts';\nexport type Thing = string;\nexport const loop = other;\n",
  'packages/server/src/services/loop.ts':
    "import { loop } from './thing.ts';\nexport const other = 1;\nexport const back = loop;\n",
  // services-below-http.
  'packages/server/src/services/answer.ts':
    "import { reply } from '../http/reply.ts';\nexport const answer = reply;\n",
  'packages/server/src/http/reply.ts': 'export const reply = 1;\n',
  // store-imports-only-domain.
  'packages/server/src/store/db.ts':
    "import { other } from '../services/loop.ts';\nexport const db = other;\n",
  // ledger-below-the-rail.
  'packages/server/src/ledger/ledger.ts':
    "import { rail } from '../chain/rail.ts';\nexport const ledger = rail;\n",
  // rail-below-services.
  'packages/server/src/chain/rail.ts':
    "import type { Thing } from '../services/thing.ts';\nexport const rail: Thing = 'evm';\n",
  // routes-speak-to-services: the store is not on the routes' whitelist.
  'packages/server/src/routes/list.ts': "import { db } from '../store/db.ts';\nexport const list = db;\n",
  // tools-speak-to-services: a tool importing a route (an arrow back up).
  'packages/server/src/tools/registry.ts':
    "import { list } from '../routes/list.ts';\nexport const tools = list;\n",
  // http-below-the-faces: the HTTP hooks importing the tools' registry (an arrow back up).
  'packages/server/src/http/hooks.ts':
    "import { tools } from '../tools/registry.ts';\nexport const hooks = tools;\n",
  // app-is-the-top: the app importing the entry.
  'packages/server/src/app/app.ts': "import { main } from '../server.ts';\nexport const app = main;\n",
  'packages/server/src/server.ts': 'export const main = 1;\n',
  // limits-stand-alone: the limiter knowing a request.
  'packages/server/src/limits/limiter.ts':
    "import { reply } from '../http/reply.ts';\nexport const limiter = reply;\n",
  // sdk-not-server.
  'packages/sdk/src/index.ts':
    "import { nothing } from '../../server/src/domain/pure.ts';\nexport const sdk = nothing;\n",
};

const EXPECTED = [
  'app-is-the-top: packages/server/src/app/app.ts → packages/server/src/server.ts',
  'domain-is-pure: packages/server/src/domain/pure.ts → packages/server/src/services/thing.ts',
  'http-below-the-faces: packages/server/src/http/hooks.ts → packages/server/src/tools/registry.ts',
  'ledger-below-the-rail: packages/server/src/ledger/ledger.ts → packages/server/src/chain/rail.ts',
  'limits-stand-alone: packages/server/src/limits/limiter.ts → packages/server/src/http/reply.ts',
  'no-circular: packages/server/src/services/loop.ts → packages/server/src/services/thing.ts',
  'rail-below-services: packages/server/src/chain/rail.ts → packages/server/src/services/thing.ts',
  'routes-speak-to-services: packages/server/src/routes/list.ts → packages/server/src/store/db.ts',
  'sdk-not-server: packages/sdk/src/index.ts → packages/server/src/domain/pure.ts',
  'services-below-http: packages/server/src/services/answer.ts → packages/server/src/http/reply.ts',
  'store-imports-only-domain: packages/server/src/store/db.ts → packages/server/src/services/loop.ts',
  'tools-speak-to-services: packages/server/src/tools/registry.ts → packages/server/src/routes/list.ts',
];

describe('floors (dependency-cruiser)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'floors-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('the real sources break no rule and the floors table of docs/design.md is current', () => {
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts/floors.mjs')], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.equal(run.stderr, '');
    assert.equal(run.status, 0);
    assert.match(run.stdout, /no violations, docs\/design\.md table up to date/);
  });

  test('a cycle, domain/ importing services/ and every other broken floor are reported', () => {
    for (const [path, text] of Object.entries(BROKEN_TREE)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    // The repository's rules as they are; only the dashboard's tsconfig (its paths) is not part of this tree.
    writeFileSync(
      join(dir, '.dependency-cruiser.cjs'),
      `const real = require(${JSON.stringify(join(ROOT, '.dependency-cruiser.cjs'))});\n` +
        'const { tsConfig, ...options } = real.options;\n' +
        'module.exports = { ...real, options };\n',
    );
    const depcruise = (outputType: string) =>
      spawnSync(
        process.execPath,
        [DEPCRUISE, 'packages', '--config', '.dependency-cruiser.cjs', '-T', outputType],
        {
          cwd: dir,
          encoding: 'utf8',
        },
      );
    // As `npm run lint` runs it: a non-zero exit, naming the rules.
    const lint = depcruise('err');
    assert.notEqual(lint.status, 0);
    assert.match(lint.stdout, /error no-circular: /);
    assert.match(lint.stdout, /error domain-is-pure: packages\/server\/src\/domain\/pure\.ts → /);
    const run = depcruise('json');
    const violations = (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary
      .violations;
    const reported = violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
    assert.deepEqual(reported, EXPECTED);
  });
});

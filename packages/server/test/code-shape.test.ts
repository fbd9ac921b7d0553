// The shape of the code base that review holds it to, checked on the real tree so that it stays true: no folder
// of the server with more than 20 source files directly in it, no hand-written source file over 500 lines, and
// only ledger/ writing an account's balance ("the only code that changes a balance", ledger/ledger.ts). Tests,
// migrations (an append-only sequence, one file per schema change) and generated code are aside.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';

const ROOT = resolve(import.meta.dirname, '../../..');
const SERVER_SRC = join(ROOT, 'packages/server/src');
const SOURCE_ROOTS = ['packages/server/src', 'packages/sdk/src', 'packages/dashboard/src', 'scripts'];
const FILES_PER_FOLDER_MAX = 20;
const LINES_PER_FILE_MAX = 500;
/** Far more than the tree holds (about 800 files): a walk that finds more is walking something else. */
const FILES_WALKED_MAX = 5_000;

const isSource = (name: string) => /\.(ts|tsx|mjs)$/.test(name) && !/\.d\.ts$/.test(name);
const isAside = (path: string) =>
  /\.test\.(ts|tsx|mjs)$/.test(path) ||
  /\.generated\./.test(path) ||
  path.includes('/store/migrations/') ||
  path.includes('/fixtures/') ||
  path.includes('/test-runner/');

/** Every file under `folder`, as paths relative to the repository. */
function walk(folder: string, found: string[] = []): string[] {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist') walk(path, found);
    } else if (isSource(entry.name)) {
      found.push(relative(ROOT, path));
    }
    assert(found.length <= FILES_WALKED_MAX, `more than ${FILES_WALKED_MAX} files under ${folder}`);
  }
  return found;
}

const lineCount = (path: string) => readFileSync(join(ROOT, path), 'utf8').trimEnd().split('\n').length;

describe('the shape of the code', () => {
  test('no folder of the server holds more than 20 source files directly', () => {
    const perFolder = new Map<string, number>();
    for (const path of walk(SERVER_SRC).filter((p) => !isAside(p))) {
      const folder = path.slice(0, path.lastIndexOf('/'));
      perFolder.set(folder, (perFolder.get(folder) ?? 0) + 1);
    }
    assert(perFolder.size > 10, 'the walk found the feature folders');
    const crowded = [...perFolder].filter(([, count]) => count > FILES_PER_FOLDER_MAX);
    assert.deepEqual(crowded, []);
  });

  test('no hand-written source file is over 500 lines', () => {
    const sources = SOURCE_ROOTS.flatMap((root) => walk(join(ROOT, root))).filter((p) => !isAside(p));
    assert(sources.length > 300, 'the walk found the sources');
    const long = sources.map((p) => [p, lineCount(p)] as const).filter(([, n]) => n > LINES_PER_FILE_MAX);
    assert.deepEqual(long, []);
  });

  test("only ledger/ writes an account's balance", () => {
    const writesBalance = /update\s+accounts\b|updateTable\(\s*['"]accounts['"]\s*\)/i;
    const writers = walk(SERVER_SRC)
      .filter((p) => !isAside(p))
      .filter((p) => writesBalance.test(readFileSync(join(ROOT, p), 'utf8')));
    assert(writers.length > 0, 'the ledger itself is found');
    assert.deepEqual(
      writers.filter((p) => !p.startsWith('packages/server/src/ledger/')),
      [],
    );
  });
});

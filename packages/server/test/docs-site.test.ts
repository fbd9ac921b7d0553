// The documentation site: `npm run docs:build` (reference generated from the code, VitePress, the anchor check)
// produces at least 15 pages with no broken internal link or anchor; every environment variable the
// configuration reads appears in it; neither the README nor the site speaks of the project's own process (issue
// numbers, "stops"); and every code block marked runnable (`<!-- runnable -->` before a sh or ts fence) runs
// against a real service this test starts — shell blocks through bash with curl, TypeScript blocks through the
// SDK — so a changed route breaks this test, not a reader.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { evmVariables } from '../scripts/docs-reference.ts';
import { openapiDocument } from '../scripts/openapi-document.ts';
import { ENVIRONMENT } from '../src/config.ts';
import { type ServiceProcess, startServiceProcess } from './support/processes.ts';
import { request } from './support/service-http.ts';

const REPO = resolve(import.meta.dirname, '../../..');
const DOCS = join(REPO, 'docs');
const SITE = join(DOCS, '.vitepress', 'dist');
const SDK_ENTRY = join(REPO, 'packages', 'sdk', 'src', 'index.ts');
const SNIPPET_TIMEOUT_MS = 60_000;
/**
 * The project's own process has no place in words for users: "issue 27", "#41", "this stop", "stop 12", nor the
 * sections of the wire contract the project is built to ("contract section 9"), which readers do not have.
 */
const PROCESS_WORDS =
  /\bissues? ?#?\d+|\b(?:this|next|previous|earlier|later|that) stop\b|\bstops? \d+|\bcontract,? sections? \d+/i;

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name.startsWith('.') ? [] : markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

function htmlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'assets' ? [] : htmlFiles(path);
    return entry.name.endsWith('.html') ? [path] : [];
  });
}

interface Snippet {
  where: string;
  language: 'sh' | 'ts';
  code: string;
}

/** Every block marked runnable: a `<!-- runnable -->` line, then a ```sh or ```ts fence. */
export function runnableSnippets(files: string[]): Snippet[] {
  return files.flatMap((file) => {
    const lines = readFileSync(file, 'utf8').split('\n');
    const found: Snippet[] = [];
    lines.forEach((line, index) => {
      if (line.trim() !== '<!-- runnable -->') return;
      const fence = /^```(sh|ts)\b/.exec(lines[index + 1] ?? '');
      assert.ok(
        fence,
        `${relative(REPO, file)}:${index + 1}: a runnable mark not followed by a sh or ts block`,
      );
      const end = lines.findIndex((candidate, at) => at > index + 1 && candidate.startsWith('```'));
      assert.ok(end > 0, `${relative(REPO, file)}:${index + 2}: the block does not end`);
      found.push({
        where: `${relative(REPO, file)}:${index + 2}`,
        language: fence[1] as 'sh' | 'ts',
        code: lines.slice(index + 2, end).join('\n'),
      });
    });
    return found;
  });
}

/** What a block gets: a new owner with 100 sandbox USDC, an agent wallet holding 25 of it and its key. */
async function freshOwner(base: string): Promise<Record<string, string>> {
  const email = `docs-${crypto.randomUUID()}@example.com`;
  const signup = await request(base, 'POST', '/api/v1/auth/signup', undefined, {
    email,
    password: 'a long enough password',
  });
  assert.equal(signup.status, 201, JSON.stringify(signup.body));
  const token = signup.body.data.token as string;
  await request(base, 'POST', '/api/v1/wallet/sandbox/deposit', token, { amount: '100' });
  const wallet = await request(base, 'POST', '/api/v1/agent-wallets', token, { label: 'docs agent' });
  const walletId = wallet.body.data.id as string;
  await request(base, 'POST', `/api/v1/agent-wallets/${walletId}/fund`, token, { amount: '25' });
  const key = await request(base, 'POST', `/api/v1/agent-wallets/${walletId}/keys`, token, { label: 'docs' });
  assert.equal(key.status, 201, JSON.stringify(key.body));
  return {
    AGENT_WALLET_URL: base,
    TOKEN: token,
    WALLET_ID: walletId,
    AGENT_KEY: key.body.data.key,
    AGENT_WALLET_API_KEY: key.body.data.key,
  };
}

async function run(snippet: Snippet, env: Record<string, string>, folder: string) {
  const fullEnv = { ...process.env, ...env };
  if (snippet.language === 'sh') {
    return promisify(execFile)('bash', ['-eo', 'pipefail', '-c', snippet.code], {
      env: fullEnv,
      timeout: SNIPPET_TIMEOUT_MS,
    });
  }
  // The block as a reader would paste it into a project with the SDK installed: here the SDK is the repository's.
  const file = join(folder, `snippet-${crypto.randomUUID()}.ts`);
  writeFileSync(file, snippet.code.replaceAll("from '@agent-wallet/sdk'", `from '${SDK_ENTRY}'`));
  return promisify(execFile)(process.execPath, [file], { env: fullEnv, timeout: SNIPPET_TIMEOUT_MS });
}

const TOOLS_MISSING = ['bash', 'curl', 'jq'].filter(
  (tool) => spawnSync(tool, ['--version']).error !== undefined,
);

describe('the documentation site', () => {
  let built: { status: number | null; output: string; ms: number };

  before(() => {
    const started = Date.now();
    const build = spawnSync('npm', ['run', 'docs:build'], {
      cwd: REPO,
      encoding: 'utf8',
      timeout: 240_000,
      env: { ...process.env, NO_COLOR: '1' },
    });
    built = { status: build.status, output: build.stdout + build.stderr, ms: Date.now() - started };
    console.log(`docs:build took ${built.ms} ms`);
  });

  test('npm run docs:build produces at least 15 pages, every internal link and anchor resolving', () => {
    assert.equal(built.status, 0, built.output.slice(-4000));
    assert.match(built.output, /docs-check: \d+ pages, every internal link and anchor resolves/);
    const pages = htmlFiles(SITE).filter((file) => !file.endsWith('404.html'));
    assert.ok(pages.length >= 15, `only ${pages.length} pages`);
  });

  test('the HTTP API reference has every route of every rail, each one rail has saying which', async () => {
    const page = readFileSync(join(DOCS, 'reference', 'http-api.md'), 'utf8');
    const document = await openapiDocument({ everyRail: true });
    const operations = Object.entries(
      document.paths as Record<string, Record<string, Record<string, string>>>,
    )
      .flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })))
      .filter(({ op }) => op.operationId !== undefined);
    const railed = operations.filter(({ op }) => op['x-rail'] !== undefined).map(({ op }) => op.operationId);
    assert.ok(
      railed.includes('listTreasurySignatures'),
      'the treasury’s routes are in the every-rail document',
    );
    const wrong = operations.flatMap(({ path, method, op }) => {
      const head = `\`${method.toUpperCase()} ${path}\` · operationId \`${op.operationId}\``;
      const line = page.split('\n').find((candidate) => candidate.startsWith(head));
      if (line === undefined) return [`${op.operationId}: not on the page`];
      const says = /· rail `(\w+)` only ·/.exec(line)?.[1];
      return says === op['x-rail']
        ? []
        : [`${op.operationId}: rail ${says} on the page, ${op['x-rail']} in the document`];
    });
    assert.deepEqual(wrong, []);
  });

  test('every environment variable the configuration reads appears in the site', () => {
    const text = htmlFiles(SITE)
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    // Read from the sources too, not only from the table: a variable read around it must be documented as well.
    const sources = ['src/config.ts', 'src/chain/config.ts', 'src/mcp/stdio.ts'].map((path) =>
      readFileSync(join(REPO, 'packages/server', path), 'utf8'),
    );
    const read = new Set([
      ...Object.keys(ENVIRONMENT),
      ...evmVariables(),
      ...sources.flatMap((source) =>
        [...source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1] as string),
      ),
    ]);
    assert.ok(read.size > 40, `only ${read.size} variables found: the pattern no longer matches the code`);
    const missing = [...read].filter((name) => !text.includes(name));
    assert.deepEqual(missing, [], `not in the site: ${missing.join(', ')}`);
  });

  test('neither the README nor the site names issues or stops', () => {
    const files = [join(REPO, 'README.md'), ...markdownFiles(DOCS), ...htmlFiles(SITE)];
    const offending = files.flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      const match = PROCESS_WORDS.exec(text);
      return match === null ? [] : [`${relative(REPO, file)}: “${match[0]}”`];
    });
    assert.deepEqual(offending, []);
    assert.match('as in issue 27', PROCESS_WORDS, 'the pattern still catches an issue number');
    assert.match('(contract section 9)', PROCESS_WORDS, 'and a section of the contract');
  });

  test('the README is a landing page of at most 300 lines with the two commands', () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    assert.ok(readme.split('\n').length <= 300);
    assert.match(readme, /^npm ci && npm start /m);
    assert.match(readme, /^npm ci && npm test /m);
    assert.match(readme, /!\[[^\]]+\]\(docs\/public\/screenshots\/overview\.png\)/);
  });
});

describe('the documentation’s runnable snippets', {
  skip:
    TOOLS_MISSING.length > 0 && process.env.CI !== 'true'
      ? `${TOOLS_MISSING.join(', ')} missing: skipping the runnable snippets`
      : false,
}, () => {
  const snippets = runnableSnippets(markdownFiles(DOCS).filter((file) => !file.includes('/reference/')));
  let service: ServiceProcess;
  let folder: string;

  before(async () => {
    assert.deepEqual(TOOLS_MISSING, [], 'the runnable snippets need bash, curl and jq');
    folder = mkdtempSync(join(tmpdir(), 'docs-snippets-'));
    service = await startServiceProcess({
      RATE_LIMITS: JSON.stringify({ signup: 1000, login: 1000, default: 10_000, agent_wallets: 10_000 }),
    });
  });

  after(async () => {
    await service?.stop();
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
  });

  test('there are runnable blocks of both kinds', () => {
    assert.ok(snippets.filter((snippet) => snippet.language === 'sh').length >= 5);
    assert.ok(snippets.filter((snippet) => snippet.language === 'ts').length >= 2);
  });

  for (const snippet of snippets) {
    test(`${snippet.where} (${snippet.language}) runs`, async () => {
      const env = await freshOwner(service.url);
      try {
        await run(snippet, env, folder);
      } catch (error) {
        const failed = error as { code?: number; stdout?: string; stderr?: string };
        assert.fail(
          `${snippet.where} failed (exit ${failed.code}):\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`.trim(),
        );
      }
    });
  }
});

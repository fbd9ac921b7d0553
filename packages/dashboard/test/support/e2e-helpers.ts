// Helpers of the dashboard's end-to-end test: build the dashboard when needed, run the real server as a child
// process on a free port with a temporary data dir, launch Debian's Chromium through playwright-core.
// Plain erasable TypeScript: it runs under Node's type stripping.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';

export const DASHBOARD_DIR = resolve(import.meta.dirname, '../..');
export const REPO_ROOT = resolve(DASHBOARD_DIR, '../..');
export const DIST_DIR = join(DASHBOARD_DIR, 'dist');
export const SCREENSHOT_DIR = join(REPO_ROOT, 'test-output', 'screenshots');
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Debian's Chromium is installed (the e2e suites' one requirement beyond the repository). */
export const HAVE_CHROMIUM = existsSync(CHROMIUM_PATH);
/** Without Chromium a suite skips with one line; under CI=true it runs, and its before() fails (requireChromium). */
export const CHROMIUM_SKIP: string | false =
  !HAVE_CHROMIUM && process.env.CI !== 'true'
    ? `Chromium not found at ${CHROMIUM_PATH} (apt-get install -y chromium): dashboard e2e skipped`
    : false;

export function requireChromium(): void {
  if (!HAVE_CHROMIUM) throw new Error(`Chromium is required in CI (CI=true) but missing at ${CHROMIUM_PATH}`);
}

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-quic',
  '--no-first-run',
  '--disable-sync',
];

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** Builds dist/ when it is missing or older than the sources, so the test never drives a stale bundle. */
export function ensureBuilt(): void {
  const index = join(DIST_DIR, 'index.html');
  const sources = [
    join(DASHBOARD_DIR, 'src'),
    join(DASHBOARD_DIR, 'index.html'),
    join(DASHBOARD_DIR, 'public'),
  ];
  const newestSource = Math.max(...sources.filter((p) => existsSync(p)).map(newestMtime));
  if (existsSync(index) && statSync(index).mtimeMs >= newestSource) return;
  const result = spawnSync('npm', ['run', 'build', '-w', 'packages/dashboard'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: process.env,
  });
  if (result.status !== 0) {
    throw new Error(`dashboard build failed:\n${result.stdout}\n${result.stderr}`);
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

export interface RunningServer {
  baseUrl: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** Generous limits so the journey never trips them (the seed's numbers are tested by the server's suites). */
export const GENEROUS_LIMITS = {
  login: 1000,
  signup: 1000,
  wallet: 10_000,
  agent_wallets: 10_000,
  default: 10_000,
  health: 10_000,
  check_balance: 1000,
  send_payment: 1000,
  get_tx_history: 1000,
  request_approval: 1000,
  tool_unauthenticated: 1000,
};

export async function startServer(
  rateLimits: Record<string, number> = GENEROUS_LIMITS,
  /** More settings of the server, e.g. WEBHOOK_ALLOW_PRIVATE: 'true' for a receiver on 127.0.0.1. */
  extraEnv: Record<string, string> = {},
): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'dashboard-e2e-'));
  const child: ChildProcess = spawn(
    process.execPath,
    [join(REPO_ROOT, 'packages/server/bin/agent-wallet.js'), 'serve'],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DASHBOARD_DIR: DIST_DIR,
        RATE_LIMITS: JSON.stringify(rateLimits),
        RAIL: 'sandbox',
        LOG_LEVEL: 'warn',
        SHUTDOWN_DRAIN_MS: '0',
        DATABASE_URL: '',
        REDIS_URL: '',
        ...extraEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`the server exited at start:\n${output}`);
    }
    try {
      const response = await fetch(`${baseUrl}/api/v1/health`);
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the server did not answer within 20 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { baseUrl, output: () => output, stop };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

export interface ToolReply {
  status: number;
  body: {
    success: boolean;
    tool?: string;
    data?: Record<string, unknown>;
    error?: { code: string; message: string };
  };
}

/** Calls a tool as an agent would: POST /mcp/v1/tools/<name> {"params": {...}} with the API key. */
export async function callTool(
  baseUrl: string,
  key: string,
  name: string,
  params: Record<string, unknown>,
): Promise<ToolReply> {
  const response = await fetch(`${baseUrl}/mcp/v1/tools/${name}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ params }),
  });
  return { status: response.status, body: (await response.json()) as ToolReply['body'] };
}

/** How long one step of a journey may take before the suite says which one failed. */
export const STEP_TIMEOUT = 15_000;

/** Waits until the locator's text contains `expected` (or matches it); fails naming what was there instead. */
export async function waitForText(locator: Locator, expected: string | RegExp, timeout = STEP_TIMEOUT) {
  const started = Date.now();
  let last = '';
  const matches = (text: string) =>
    typeof expected === 'string' ? text.includes(expected) : expected.test(text);
  while (Date.now() - started < timeout) {
    last = (await locator.textContent({ timeout }).catch(() => '')) ?? '';
    if (matches(last)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  const wanted = typeof expected === 'string' ? JSON.stringify(expected) : String(expected);
  assert.fail(`expected ${wanted} in ${JSON.stringify(last)}`);
}

/** A screenshot into the suite's folder (test-output/screenshots). */
export async function shot(page: Page, name: string, fullPage = true) {
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage });
}

/** The page fits its viewport's width. */
export async function noHorizontalScroll(page: Page): Promise<void> {
  const widths = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  assert.ok(widths.scroll <= widths.client, `horizontal scroll: ${widths.scroll} > ${widths.client}`);
}

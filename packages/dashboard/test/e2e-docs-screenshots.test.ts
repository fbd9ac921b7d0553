// The documentation's pictures of the dashboard (docs/owners/dashboard.md, the site's home page), taken from the
// real server in headless Chromium at 1280×800, so they show the dashboard as it is. Every run takes them into
// test-output/screenshots/docs-*.png; with UPDATE_DOCS=1 they also replace docs/public/screenshots/*.png (commit
// those). Without UPDATE_DOCS the test fails when a picture the docs show is missing, naming the command.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  CHROMIUM_SKIP,
  callTool,
  ensureBuilt,
  GENEROUS_LIMITS,
  launchBrowser,
  REPO_ROOT,
  type RunningServer,
  requireChromium,
  SCREENSHOT_DIR,
  STEP_TIMEOUT,
  startServer,
  waitForText,
} from './support/e2e-helpers.ts';

const VIEWPORT = { width: 1280, height: 800 };
const DOCS_PICTURES = join(REPO_ROOT, 'docs', 'public', 'screenshots');
const UPDATE = process.env.UPDATE_DOCS === '1';
const PASSWORD = 'correct horse battery staple';
const RECIPIENT = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

describe('the documentation’s dashboard pictures', { skip: CHROMIUM_SKIP }, () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let base = '';
  let token = '';
  let walletId = '';
  const pageErrors: string[] = [];

  async function rest(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const envelope = (await response.json()) as { data?: Record<string, unknown> };
    assert.ok(response.ok, `${method} ${path}: ${response.status} ${JSON.stringify(envelope)}`);
    return envelope.data ?? {};
  }

  /** Takes the picture `name` of what the page shows now (the viewport: what a reader sees first). */
  async function picture(name: string) {
    const taken = join(SCREENSHOT_DIR, `docs-${name}.png`);
    await page.screenshot({ path: taken });
    if (UPDATE) copyFileSync(taken, join(DOCS_PICTURES, `${name}.png`));
    else
      assert.ok(
        existsSync(join(DOCS_PICTURES, `${name}.png`)),
        `docs/public/screenshots/${name}.png is missing: run UPDATE_DOCS=1 npm test -- e2e-docs-screenshots`,
      );
  }

  before(async () => {
    requireChromium();
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    mkdirSync(DOCS_PICTURES, { recursive: true });
    ensureBuilt();
    server = await startServer(GENEROUS_LIMITS);
    base = server.baseUrl;
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: VIEWPORT });
    page = await context.newPage();
    page.setDefaultTimeout(STEP_TIMEOUT);
    page.on('pageerror', (error) => pageErrors.push(`pageerror: ${error.message}`));
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('an owner with two agents, caps, payments and one waiting for approval', async () => {
    await page.goto(`${base}/signup`);
    await page.getByLabel('Email').fill(`docs-${Date.now()}@example.com`);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    token = await page.evaluate(
      () => (JSON.parse(sessionStorage.getItem('agent-wallet.session') ?? '{}') as { token: string }).token,
    );
    await rest('POST', '/wallet/sandbox/deposit', { amount: '1000' });
    const support = String((await rest('POST', '/agent-wallets', { label: 'Support bot' })).id);
    await rest('POST', `/agent-wallets/${support}/fund`, { amount: '40' }, { 'idempotency-key': 'docs-0' });
    walletId = String((await rest('POST', '/agent-wallets', { label: 'Research bot' })).id);
    await rest('POST', `/agent-wallets/${walletId}/fund`, { amount: '200' }, { 'idempotency-key': 'docs-1' });
    for (const [type, params] of [
      ['spend_cap_daily', { limit: '100' }],
      ['spend_cap_period', { limit: '300', period: 'month', timezone: 'UTC' }],
      ['require_approval_above', { amount: '20' }],
    ] as const) {
      await rest('POST', `/agent-wallets/${walletId}/policies`, { type, params });
    }
    const key = String((await rest('POST', `/agent-wallets/${walletId}/keys`, { label: 'research' })).key);
    for (const [amount, memo] of [
      ['4.20', 'search API'],
      ['12.50', 'GPU hours'],
      ['35', 'dataset licence'],
    ]) {
      const reply = await callTool(base, key, 'send_payment', { toAddress: RECIPIENT, amount, memo });
      assert.ok(reply.body.success, JSON.stringify(reply.body));
    }
  });

  it('the overview', async () => {
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await waitForText(page.getByTestId('latest-payment').first(), '35.00 USDC');
    await picture('overview');
  });

  it('an agent wallet, its policies, the approvals inbox, the master wallet, security', async () => {
    await page.goto(`${base}/agents/${walletId}`);
    await page.getByRole('heading', { name: 'Research bot', level: 1 }).waitFor();
    await waitForText(page.locator('main'), '35.00');
    await picture('agent-wallet');
    await page.goto(`${base}/agents/${walletId}?tab=policies`);
    await page.getByRole('heading', { name: 'Research bot', level: 1 }).waitFor();
    await waitForText(page.locator('main'), 'Payments above 20.00 USDC need your approval');
    await picture('policies');
    for (const [path, heading, name] of [
      ['/approvals', 'Approvals', 'approvals'],
      ['/master', 'Master wallet', 'master-wallet'],
      ['/security', 'Security', 'security'],
    ] as const) {
      await page.goto(`${base}${path}`);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await page.waitForLoadState('networkidle');
      await picture(name);
    }
    assert.deepEqual(pageErrors, []);
  });
});

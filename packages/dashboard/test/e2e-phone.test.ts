// End-to-end: the main pages fit a 390×844 phone without scrolling sideways, against the real server (child
// process, sandbox rail) in headless Chromium. An outside test found every page 396 px wide there once a payment
// waited for approval: the Approvals badge in the main navigation (a row that scrolls sideways on a phone) holds
// visually hidden words, absolutely positioned, that stuck out past the page's right edge. The scene has what
// widens pages: a payment waiting (both badges), a long wallet label, keys, a policy, a member invited.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  CHROMIUM_SKIP,
  callTool,
  ensureBuilt,
  GENEROUS_LIMITS,
  launchBrowser,
  type RunningServer,
  requireChromium,
  SCREENSHOT_DIR,
  STEP_TIMEOUT,
  shot,
  startServer,
} from './support/e2e-helpers.ts';

const PHONE = { width: 390, height: 844 };
const PASSWORD = 'correct horse battery staple';
const LABEL = 'Research agent with a rather long name';

describe('dashboard end to end: a 390 px phone', { skip: CHROMIUM_SKIP }, () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let base: string;
  let token = '';
  let walletId = '';
  const email = `e2e-phone-${Date.now()}@example.com`;
  const pageErrors: string[] = [];

  /** The REST API as the owner, for setting the scene. */
  async function rest(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const response = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const envelope = (await response.json()) as { success: boolean; data: Record<string, unknown> };
    assert.ok(envelope.success, `${method} ${path}: ${JSON.stringify(envelope)}`);
    return envelope.data;
  }

  /** The page is no wider than the phone: `scrollWidth` within 390 px (and within the visible width). */
  async function fitsThePhone(what: string): Promise<void> {
    await page.waitForLoadState('networkidle');
    const widths = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    assert.ok(widths.scroll <= PHONE.width, `${what}: the page is ${widths.scroll} px wide`);
    assert.ok(widths.scroll <= widths.client, `${what}: ${widths.scroll} px wide, ${widths.client} px shown`);
  }

  before(async () => {
    requireChromium();
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    ensureBuilt();
    server = await startServer(GENEROUS_LIMITS);
    base = server.baseUrl;
    const signup = await fetch(`${base}/api/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    token = ((await signup.json()) as { data: { token: string } }).data.token;
    await rest('POST', '/wallet/sandbox/deposit', { amount: '1000' });
    walletId = (await rest('POST', '/agent-wallets', { label: LABEL })).id as string;
    await rest('POST', `/agent-wallets/${walletId}/fund`, { amount: '100' });
    const key = (await rest('POST', `/agent-wallets/${walletId}/keys`, { label: 'phone agent' }))
      .key as string;
    await rest('POST', `/agent-wallets/${walletId}/policies`, {
      type: 'spend_cap_daily',
      params: { limit: '50' },
    });
    await rest('POST', '/members/invitations', {
      email: `e2e-phone-member-${Date.now()}@example.com`,
      role: 'viewer',
    });
    const held = await callTool(base, key, 'request_approval', {
      toAddress: `0x${'ab'.repeat(20)}`,
      amount: '5',
    });
    assert.equal(held.status, 200, JSON.stringify(held.body));
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: PHONE });
    page.setDefaultTimeout(STEP_TIMEOUT);
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('logs in and shows the overview with the Approvals badge, no wider than the phone', async () => {
    await page.goto(`${base}/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByTestId('approvals-badge').waitFor();
    await fitsThePhone('the overview');
    await shot(page, 'phone-01-overview');
  });

  it('an agent wallet page fits on every tab; its tab row scrolls within itself', async () => {
    for (const tab of ['activity', 'approvals', 'keys', 'policies', 'connect', 'settings']) {
      await page.goto(`${base}/agents/${walletId}${tab === 'activity' ? '' : `?tab=${tab}`}`);
      await page.getByRole('heading', { name: LABEL, level: 1 }).waitFor();
      await page.getByTestId(`tab-${tab}`).waitFor();
      await fitsThePhone(`the agent wallet's ${tab} tab`);
    }
    // The last tab is reachable: the row scrolls it into view rather than widening the page.
    const tabs = page.getByRole('navigation', { name: 'Wallet sections' });
    const row = await tabs.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    assert.ok(row.scroll > row.client, 'six tabs do not fit 390 px: the row itself scrolls');
    await page.getByTestId('tab-settings').scrollIntoViewIfNeeded();
    await page.getByTestId('tab-settings').click();
    await fitsThePhone('the settings tab, scrolled to');
    await shot(page, 'phone-02-agent-wallet');
  });

  it('security and members fit too, and so do the other pages of the main navigation', async () => {
    for (const [path, heading] of [
      ['/security', 'Security'],
      ['/members', 'Members'],
      ['/master', 'Master wallet'],
      ['/agents', 'Agent wallets'],
      ['/approvals', 'Approvals'],
      ['/webhooks', 'Webhooks'],
    ] as const) {
      await page.goto(`${base}${path}`);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await fitsThePhone(path);
    }
    await shot(page, 'phone-03-webhooks');
  });

  it('raised no page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});

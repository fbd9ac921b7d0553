// End-to-end: the overview, the first page after login, against the real server (child process, sandbox rail) in
// headless Chromium at 1280×800. An agent with a daily cap and a weekly budget pays twice and asks for a payment
// above the approval threshold: the overview shows what it spent today against its caps, the held payment with
// Approve (approved from there), and the latest payment in view without scrolling. A viewer of the same
// organization sees the waiting payment but no Approve button.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
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
  startServer,
  waitForText,
} from './support/e2e-helpers.ts';

const VIEWPORT = { width: 1280, height: 800 };
const EXTERNAL_ADDRESS = `0x${'cd'.repeat(20)}`;
const PASSWORD = 'correct horse battery staple';
/** Where the brief asked for a picture of the overview (besides the suite's screenshot folder). */
const OVERVIEW_PICTURE = process.env.OVERVIEW_SCREENSHOT ?? '/tmp/overview.png';

/** The element lies wholly inside the viewport and the page has not been scrolled. */
async function assertInView(page: Page, locator: Locator) {
  const box = await locator.boundingBox();
  assert.ok(box !== null, 'not rendered');
  const scrolled = await page.evaluate(() => window.scrollY);
  assert.equal(scrolled, 0, 'the page was scrolled');
  assert.ok(box.y >= 0 && box.y + box.height <= VIEWPORT.height, `y ${box.y} + ${box.height} > 800`);
  assert.ok(box.x >= 0 && box.x + box.width <= VIEWPORT.width, `x ${box.x} + ${box.width} > 1280`);
}

describe('dashboard end to end: the overview', { skip: CHROMIUM_SKIP }, () => {
  let server: RunningServer;
  let browser: Browser;
  let ownerContext: BrowserContext;
  let viewerContext: BrowserContext;
  let owner: Page;
  let base: string;
  let token = '';
  let apiKey = '';
  const stamp = Date.now();
  const ownerEmail = `e2e-overview-owner-${stamp}@example.com`;
  const viewerEmail = `e2e-overview-viewer-${stamp}@example.com`;
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
    const envelope = (await response.json()) as { success: boolean; data?: Record<string, unknown> };
    assert.ok(response.ok, `${method} ${path}: ${response.status} ${JSON.stringify(envelope)}`);
    return envelope.data ?? {};
  }

  async function pay(amount: string): Promise<string> {
    const reply = await callTool(base, apiKey, 'send_payment', { toAddress: EXTERNAL_ADDRESS, amount });
    assert.ok(reply.body.success, JSON.stringify(reply.body));
    return String(reply.body.data?.status);
  }

  async function newPage(context: BrowserContext): Promise<Page> {
    const page = await context.newPage();
    page.setDefaultTimeout(STEP_TIMEOUT);
    page.on('pageerror', (error) => pageErrors.push(`pageerror: ${error.message}`));
    return page;
  }

  before(async () => {
    requireChromium();
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    ensureBuilt();
    server = await startServer(GENEROUS_LIMITS);
    base = server.baseUrl;
    browser = await launchBrowser();
    ownerContext = await browser.newContext({ viewport: VIEWPORT });
    viewerContext = await browser.newContext({ viewport: VIEWPORT });
    owner = await newPage(ownerContext);
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('after sign-up the overview is the first page', async () => {
    await owner.goto(`${base}/signup`);
    await owner.getByLabel('Email').fill(ownerEmail);
    await owner.getByLabel('Password').fill(PASSWORD);
    await owner.getByRole('button', { name: 'Create account' }).click();
    await owner.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    assert.equal(new URL(owner.url()).pathname, '/');
    await waitForText(owner.getByTestId('overview-waiting'), 'No payments wait for your approval.');
    token = await owner.evaluate(
      () => (JSON.parse(sessionStorage.getItem('agent-wallet.session') ?? '{}') as { token: string }).token,
    );
  });

  it("shows an agent's spending today against its caps, what waits, and the latest payment in view", async () => {
    await rest('POST', '/wallet/sandbox/deposit', { amount: '1000' });
    await rest('POST', '/agent-wallets', { label: 'Idle bot' });
    const walletId = String((await rest('POST', '/agent-wallets', { label: 'Research bot' })).id);
    await rest('POST', `/agent-wallets/${walletId}/fund`, { amount: '200' }, { 'idempotency-key': 'ov-1' });
    for (const [type, params] of [
      ['spend_cap_daily', { limit: '100' }],
      ['spend_cap_period', { limit: '150', period: 'week', timezone: 'UTC' }],
      ['require_approval_above', { amount: '20' }],
    ] as const) {
      await rest('POST', `/agent-wallets/${walletId}/policies`, { type, params });
    }
    apiKey = String((await rest('POST', `/agent-wallets/${walletId}/keys`, { label: 'research' })).key);
    assert.equal(await pay('5'), 'completed');
    assert.equal(await pay('7'), 'completed');
    assert.equal(await pay('25'), 'pending');

    await owner.reload();
    await owner.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    const card = owner.getByTestId('overview-agent').filter({ hasText: 'Research bot' });
    await waitForText(card.getByTestId('spent-today'), 'Spent today: 12.00 USDC');
    await waitForText(card.getByTestId('spent-today'), '25.00 USDC held for approval');
    // Caps count what is held: 5 + 7 + 25.
    const daily = card.getByTestId('cap-bar').filter({ hasText: 'Daily cap (24 hours)' });
    await waitForText(daily, '37.00 of 100.00 USDC used · 63.00 USDC left');
    const weekly = card.getByTestId('cap-bar').filter({ hasText: 'Weekly budget (UTC)' });
    await waitForText(weekly, '37.00 of 150.00 USDC used');
    await waitForText(card.getByTestId('overview-balance'), '163.00 USDC');
    // The wallet with a payment waiting comes first.
    await waitForText(owner.getByTestId('overview-agent').first(), 'Research bot');

    const latest = owner.getByTestId('latest-payment').first();
    await waitForText(latest, '25.00 USDC');
    await waitForText(latest, 'awaiting approval');
    assert.equal(await owner.getByTestId('latest-payment').count(), 3);
    await assertInView(owner, latest);
    await assertInView(owner, owner.getByTestId('latest-payment').last());
    const waiting = owner.getByTestId('approval-item').filter({ hasText: '25.00 USDC' });
    await assertInView(owner, waiting.getByRole('button', { name: 'Approve' }));
    await owner.screenshot({ path: OVERVIEW_PICTURE });
    await owner.screenshot({ path: join(SCREENSHOT_DIR, 'overview-01-owner.png'), fullPage: true });
  });

  it('approves the waiting payment from the overview', async () => {
    const item = owner.getByTestId('approval-item').filter({ hasText: '25.00 USDC' });
    await item.getByRole('button', { name: 'Approve' }).click();
    const dialog = owner.getByRole('dialog', { name: 'Approve this payment?' });
    await dialog.getByRole('button', { name: 'Approve payment' }).click();
    await owner.locator('.status-note', { hasText: 'now completed' }).waitFor();
    await item.waitFor({ state: 'detached' });
    await waitForText(owner.getByTestId('overview-waiting'), 'No payments wait for your approval.');
    await waitForText(owner.getByTestId('latest-payment').first(), 'completed');
    const card = owner.getByTestId('overview-agent').filter({ hasText: 'Research bot' });
    await waitForText(card.getByTestId('spent-today'), 'Spent today: 37.00 USDC');
  });

  it('a viewer sees what waits but no Approve or Reject button', async () => {
    const invitation = await rest('POST', '/members/invitations', { email: viewerEmail, role: 'viewer' });
    const joined = await fetch(`${base}/api/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: viewerEmail, password: PASSWORD, invitationToken: invitation.token }),
    });
    assert.equal(joined.status, 201);
    assert.equal(await pay('30'), 'pending');

    const viewer = await newPage(viewerContext);
    await viewer.goto(`${base}/login`);
    await viewer.getByLabel('Email').fill(viewerEmail);
    await viewer.getByLabel('Password').fill(PASSWORD);
    await viewer.getByRole('button', { name: 'Log in' }).click();
    await viewer.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await waitForText(viewer.getByTestId('account-role'), 'Viewer');
    const item = viewer.getByTestId('approval-item').filter({ hasText: '30.00 USDC' });
    await item.waitFor();
    await viewer.getByTestId('approvals-read-only').waitFor();
    const waiting = viewer.getByTestId('overview-waiting');
    assert.equal(await waiting.getByRole('button', { name: 'Approve' }).count(), 0);
    assert.equal(await waiting.getByRole('button', { name: 'Reject' }).count(), 0);
    await waitForText(viewer.getByTestId('latest-payment').first(), '30.00 USDC');
    await viewer.screenshot({ path: join(SCREENSHOT_DIR, 'overview-02-viewer.png') });
    assert.deepEqual(pageErrors, []);
  });
});

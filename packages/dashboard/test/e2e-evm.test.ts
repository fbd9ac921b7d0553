// End-to-end on the evm rail: a private anvil with the TestUSDC token, the real server (child process, RAIL=evm)
// serving the built dashboard, driven in headless Chromium. Real USDC is minted to the master address, shows as on
// its way with its confirmation count, is credited once mined deep enough; an agent's payout is shown sending on
// chain, then completed with its transaction hash linked to the explorer. No SANDBOX marker anywhere.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { anvilAvailable, mine } from '../../server/test/support/anvil.ts';
import { type EvmWorld, evmEnv, startEvmWorld } from '../../server/test/support/evm.ts';
import { type ServiceProcess, startServiceProcess } from '../../server/test/support/processes.ts';
import {
  CHROMIUM_PATH,
  callTool,
  DIST_DIR,
  ensureBuilt,
  GENEROUS_LIMITS,
  HAVE_CHROMIUM,
  launchBrowser,
  SCREENSHOT_DIR,
  STEP_TIMEOUT,
  shot,
  waitForText,
} from './support/e2e-helpers.ts';

const probe = await anvilAvailable();
const inCi = process.env.CI === 'true';
const skipReason = !probe.available
  ? probe.skip
  : !HAVE_CHROMIUM && !inCi
    ? `Chromium not found at ${CHROMIUM_PATH} (apt-get install -y chromium): dashboard evm e2e skipped`
    : false;

/** The master view polls deposits on their way every 5 s and the server watches the chain every 200 ms. */
const CHAIN_WAIT = 20_000;
const PAYOUT_WAIT = 60_000;
const CONFIRMATIONS = 3;
const EXPLORER = 'https://explorer.example';
const OUTSIDE = '0x00000000000000000000000000000000000c0ffe';
const PASSWORD = 'correct horse battery staple';
const TX_HASH = /^0x[0-9a-f]{64}$/i;

/** Waits until the locator's text matches `expected` (a string: contains it). */

async function linkOf(locator: Locator) {
  return {
    href: await locator.getAttribute('href'),
    target: await locator.getAttribute('target'),
    rel: await locator.getAttribute('rel'),
    title: await locator.getAttribute('title'),
    text: (await locator.textContent()) ?? '',
  };
}

/** "0x1234…abcd", as the dashboard shortens a hash. */
const short = (hash: string) => `${hash.slice(0, 6)}…${hash.slice(-4)}`;

describe('dashboard end to end on the evm rail', { skip: skipReason }, () => {
  let world: EvmWorld | undefined;
  let server: ServiceProcess | undefined;
  let dataDir: string | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let base: string;
  let token = '';
  let depositHash = '';
  const consoleErrors: string[] = [];
  const requestFailures: string[] = [];

  const rest = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { data?: Record<string, unknown> } };
  };

  before(async () => {
    assert.ok(HAVE_CHROMIUM, `Chromium is required in CI (CI=true) but missing at ${CHROMIUM_PATH}`);
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    ensureBuilt();
    world = await startEvmWorld();
    dataDir = mkdtempSync(join(tmpdir(), 'dashboard-e2e-evm-'));
    server = await startServiceProcess({
      ...evmEnv(world, {
        CONFIRMATIONS: String(CONFIRMATIONS),
        CHAIN_POLL_INTERVAL_MS: '200',
        EXPLORER_URL: EXPLORER,
      }),
      DATA_DIR: dataDir,
      DASHBOARD_DIR: DIST_DIR,
      JWT_SECRET: 'dashboard-e2e-evm-secret-of-at-least-32-characters',
      RATE_LIMITS: JSON.stringify(GENEROUS_LIMITS),
      DATABASE_URL: '',
      REDIS_URL: '',
    });
    base = server.url;
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(STEP_TIMEOUT);
    page.on('pageerror', (error) => consoleErrors.push(`pageerror: ${error.message}`));
    page.on('response', (response) => {
      if (response.status() >= 400)
        requestFailures.push(`${response.status()} ${response.request().method()} ${response.url()}`);
    });
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        consoleErrors.push(message.text());
      }
    });
  });

  after(async () => {
    await browser?.close();
    if (server !== undefined) {
      const failures = requestFailures.map((line) => `browser got ${line}`).join('\n');
      writeFileSync(
        join(SCREENSHOT_DIR, '..', 'dashboard-e2e-evm-server.log'),
        `${failures}\n${server.output()}`,
      );
      await server.stop();
    }
    await world?.anvil.stop();
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  it('says evm with the explorer; the login screen has no SANDBOX marker', async () => {
    const health = (await (await fetch(`${base}/api/v1/health`)).json()) as {
      data: { rail: string; explorerUrl?: string; confirmations?: number };
    };
    assert.equal(health.data.rail, 'evm');
    assert.equal(health.data.explorerUrl, EXPLORER);
    assert.equal(health.data.confirmations, CONFIRMATIONS);
    await page.goto(`${base}/login`);
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    assert.equal(await page.getByTestId('sandbox-banner').count(), 0);
    assert.doesNotMatch((await page.textContent('body')) ?? '', /sandbox|simulated/i);
  });

  it('signs up: the master wallet shows where to send USDC and nothing on its way', async () => {
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Email').fill(`e2e-evm-${Date.now()}@example.com`);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByTestId('nav-master').click();
    await waitForText(page.getByTestId('master-balance'), '0.00 USDC');
    const address = (await page.getByTestId('master-address').textContent()) ?? '';
    assert.match(address, /^0x[0-9a-fA-F]{40}$/);
    assert.equal(await page.getByTestId('deposit-address').textContent(), address);
    await page.getByRole('button', { name: 'Copy deposit address' }).waitFor();
    await waitForText(page.getByTestId('chain-deposit'), 'Send USDC');
    await waitForText(page.getByTestId('no-pending-deposits'), 'No deposits on their way.');
    assert.equal(await page.getByTestId('sandbox-banner').count(), 0);
    assert.equal(await page.getByTestId('sandbox-pill').count(), 0);
    assert.equal(await page.getByLabel('Amount to deposit').count(), 0, 'no sandbox deposit form');
    assert.doesNotMatch((await page.textContent('body')) ?? '', /sandbox|simulated/i);
    const session = await page.evaluate(() => sessionStorage.getItem('agent-wallet.session'));
    token = (JSON.parse(session ?? '{}') as { token?: string }).token ?? '';
    assert.ok(token !== '', 'no session token');
  });

  it('shows a transfer on its way with its confirmations, then credits it once mined deep enough', async () => {
    const address = (await page.getByTestId('master-address').textContent()) ?? '';
    await world!.usdc.mint(address as `0x${string}`, 25_000_000n);
    const row = page.getByTestId('pending-deposit').filter({ hasText: '+25.00 USDC' });
    await row.waitFor({ timeout: CHAIN_WAIT });
    await waitForText(row.getByTestId('pending-confirmations'), `1 of ${CONFIRMATIONS} confirmations`);
    const link = await linkOf(row.getByTestId('tx-hash-link'));
    depositHash = link.title ?? '';
    assert.match(depositHash, TX_HASH);
    assert.equal(link.href, `${EXPLORER}/tx/${depositHash}`);
    assert.equal(link.target, '_blank');
    assert.equal(link.rel, 'noopener noreferrer');
    assert.equal(link.text, short(depositHash));
    assert.equal(await page.getByTestId('master-balance').textContent(), '0.00 USDC', 'not money yet');
    await shot(page, 'evm-01-deposit-on-its-way');
    await page.setViewportSize({ width: 375, height: 812 });
    const widths = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    assert.ok(
      widths.scroll <= widths.client,
      `horizontal scroll at 375 px: ${widths.scroll} > ${widths.client}`,
    );
    await page.setViewportSize({ width: 1280, height: 900 });

    await mine(world!.anvil, CONFIRMATIONS - 1);
    await waitForText(page.getByTestId('master-balance'), '25.00 USDC', CHAIN_WAIT);
    await page.getByTestId('no-pending-deposits').waitFor({ timeout: CHAIN_WAIT });
    const credited = page.getByTestId('deposits').locator('li').filter({ hasText: '+25.00 USDC' });
    await credited.waitFor();
    await waitForText(credited, 'rail evm');
    const creditedLink = await linkOf(credited.getByTestId('tx-hash-link'));
    assert.equal(creditedLink.href, `${EXPLORER}/tx/${depositHash}`);
    assert.equal(creditedLink.text, short(depositHash));
    await shot(page, 'evm-02-deposit-credited');
  });

  it("shows an agent's payout sending on chain, then completed with its hash linked to the explorer", async () => {
    const created = await rest('POST', '/agent-wallets', { label: 'Payer' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const walletId = String(created.body.data?.id);
    const key = await rest('POST', `/agent-wallets/${walletId}/keys`, { label: 'payer key' });
    assert.equal(key.status, 201, JSON.stringify(key.body));
    const apiKey = String(key.body.data?.key);

    await page.goto(`${base}/agents/${walletId}`);
    await page.getByRole('heading', { name: 'Payer', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Move money' }).click();
    const move = page.getByRole('dialog', { name: /^Move money/ });
    await move.getByLabel('Fund from master wallet').fill('10');
    await move.getByRole('button', { name: 'Fund', exact: true }).click();
    await waitForText(page.getByTestId('agent-balance'), '10.00 USDC');
    await move.getByRole('button', { name: 'Done' }).click();
    await move.waitFor({ state: 'detached' });

    const paid = await callTool(base, apiKey, 'send_payment', { toAddress: OUTSIDE, amount: '4' });
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    assert.equal(paid.body.data?.status, 'processing');
    const txId = String(paid.body.data?.txId);

    await page.getByRole('button', { name: 'Refresh' }).click();
    const payment = page.getByTestId('tx-item').filter({ hasText: '−4.00 USDC' });
    await payment.waitFor();
    assert.equal(await payment.getAttribute('data-status'), 'processing');
    await waitForText(payment.locator('.tag'), /sending on chain/i);
    await shot(page, 'evm-03-payout-sending');

    // Mine until the payout is confirmed deep enough (the sweep of the deposit goes first).
    let txHash = '';
    const deadline = Date.now() + PAYOUT_WAIT;
    while (txHash === '') {
      assert.ok(Date.now() < deadline, 'the payout did not complete in time');
      await mine(world!.anvil, 1);
      await new Promise((r) => setTimeout(r, 300));
      const history = await callTool(base, apiKey, 'get_tx_history', {});
      const items = (history.body.data?.transactions ?? []) as {
        id: string;
        status: string;
        txHash: string;
      }[];
      const tx = items.find((t) => t.id === txId);
      assert.notEqual(tx?.status, 'failed', JSON.stringify(tx));
      if (tx?.status === 'completed') txHash = tx.txHash;
    }
    assert.match(txHash, TX_HASH);
    assert.equal(await world!.usdc.balanceOf(OUTSIDE), 4_000_000n);

    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.waitForSelector('[data-testid="tx-item"][data-status="completed"] >> text=−4.00 USDC');
    const done = page.getByTestId('tx-item').filter({ hasText: '−4.00 USDC' });
    await waitForText(done.locator('.tag'), 'completed');
    const link = await linkOf(done.getByTestId('tx-hash-link'));
    assert.equal(link.href, `${EXPLORER}/tx/${txHash}`);
    assert.equal(link.target, '_blank');
    assert.equal(link.rel, 'noopener noreferrer');
    assert.equal(link.title, txHash);
    assert.equal(link.text, short(txHash));
    await shot(page, 'evm-04-payout-completed');
  });

  it('raised no script errors', () => {
    assert.deepEqual(consoleErrors, []);
  });
});

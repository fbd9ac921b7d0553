// End-to-end: the real server (child process) serving the built dashboard, driven in headless Chromium the way a
// person would use it, with an "agent" calling the tool API from this test. One journey, step by step; each
// step builds on the previous one. Screenshots of every main view go to test-output/screenshots/.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  CHROMIUM_SKIP,
  callTool,
  ensureBuilt,
  GENEROUS_LIMITS,
  launchBrowser,
  noHorizontalScroll,
  type RunningServer,
  requireChromium,
  SCREENSHOT_DIR,
  STEP_TIMEOUT,
  shot,
  startServer,
  waitForText,
} from './support/e2e-helpers.ts';

/** The dashboard polls GET /agent-wallets every 15 s; allow one full interval plus slack for a busy machine. */
const POLL_WAIT = 30_000;
const EXTERNAL_ADDRESS = `0x${'ab'.repeat(20)}`;
const XSS_LABEL = '<img src=x onerror="window.__xss=1">';
const PASSWORD = 'correct horse battery staple';

async function text(locator: Locator): Promise<string> {
  return (await locator.textContent({ timeout: STEP_TIMEOUT })) ?? '';
}

/** Waits until the locator's text contains `expected`. */

/**
 * The cells of a downloaded CSV (RFC 4180, no quoted line breaks in these rows), header first. Every cell is
 * quoted; it comes back as its text.
 */
function csvRows(text: string): string[][] {
  const unquote = (cell: string) => (cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell);
  return text
    .trim()
    .split('\r\n')
    .map((line) =>
      line
        .match(/("([^"]|"")*"|[^,]*)(,|$)/g)!
        .map((cell) => unquote(cell.replace(/,$/, '')))
        .slice(0, -1),
    );
}

/** Clicks what starts a download and answers the downloaded file's text. */
async function downloadOf(page: Page, click: () => Promise<void>): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  const path = await download.path();
  return { name: download.suggestedFilename(), text: readFileSync(path, 'utf8') };
}

describe('dashboard end to end', { skip: CHROMIUM_SKIP }, () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let base: string;
  let apiKey = '';
  const email = `e2e-${Date.now()}@example.com`;
  const consoleErrors: string[] = [];
  const cspViolations: string[] = [];
  const requestFailures: string[] = [];
  const bucketHits = { agent_wallets: [] as number[], wallet: [] as number[] };

  before(async () => {
    requireChromium();
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    ensureBuilt();
    server = await startServer();
    base = server.baseUrl;
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(STEP_TIMEOUT);
    page.on('pageerror', (error) => consoleErrors.push(`pageerror: ${error.message}`));
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith('/api/v1/agent-wallets')) {
        bucketHits.agent_wallets.push(Date.now());
        if (process.env.E2E_TRACE) console.log('# ', request.method(), request.url());
      }
      if (request.method() === 'GET' && path.startsWith('/api/v1/wallet')) bucketHits.wallet.push(Date.now());
    });
    page.on('response', (response) => {
      if (response.status() >= 400)
        requestFailures.push(`${response.status()} ${response.request().method()} ${response.url()}`);
    });
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
      // Failed requests the journey causes on purpose (401 after revoke, the faked 429s) are not page errors.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        consoleErrors.push(message.text());
      }
    });
  });

  after(async () => {
    await browser?.close();
    if (server !== undefined) {
      // The server's log of this run, for when a step fails.
      const failures = requestFailures.map((line) => `browser got ${line}`).join('\n');
      writeFileSync(
        join(SCREENSHOT_DIR, '..', 'dashboard-e2e-server.log'),
        `${failures}\n${server.output()}`,
      );
      await server.stop();
    }
  });

  it('serves the dashboard at / and at client-side routes, with the strict CSP', async () => {
    const deep = await fetch(`${base}/agents/some-id`);
    assert.equal(deep.status, 200);
    assert.match(deep.headers.get('content-type') ?? '', /text\/html/);
    assert.match(deep.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    const html = await deep.text();
    assert.doesNotMatch(html, /<script>(?!<)/, 'an inline script');
    assert.doesNotMatch(html, /style=/, 'an inline style');
    const root = await fetch(`${base}/`);
    assert.equal(root.status, 200);
    assert.match(root.headers.get('content-type') ?? '', /text\/html/);
    assert.match(root.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    assert.equal(root.headers.get('x-content-type-options'), 'nosniff');
  });

  it('shows the login screen with the SANDBOX marker', async () => {
    await page.goto(`${base}/login`);
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await page.getByTestId('sandbox-banner').waitFor();
    await shot(page, '01-login');
  });

  it('signs up, lands on the overview and opens the master wallet', async () => {
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await waitForText(page.locator('.field-error'), 'at least 8 characters');
    // The strength meter (its dictionaries a chunk of their own, fetched now under the strict CSP) judges as the
    // server does: a weak password is not even sent.
    await page.getByLabel('Password').fill('aaaaaaaaaaaa');
    await waitForText(page.getByTestId('password-strength'), 'Very easy to guess: Repeated characters');
    await page.getByRole('button', { name: 'Create account' }).click();
    await waitForText(page.locator('.field-error'), 'Too easy to guess.');
    await page.getByLabel('Password').fill(PASSWORD);
    await waitForText(page.getByTestId('password-strength'), 'Very hard to guess.');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByTestId('nav-master').click();
    await page.getByTestId('master-balance').waitFor();
    await waitForText(page.getByTestId('master-balance'), '0.00 USDC');
    await page.getByTestId('sandbox-pill').waitFor();
    assert.match(await text(page.getByTestId('master-address')), /^0x[0-9a-fA-F]{40}$/);
  });

  it('validates the deposit amount inline, then deposits sandbox money', async () => {
    let deposits = 0;
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/wallet/sandbox/deposit')) deposits += 1;
    });
    const amount = page.getByLabel('Amount to deposit');
    for (const [bad, message] of [
      ['1e3', 'exponent'],
      ['.5', 'leading zero'],
      ['1.1234567', '6 decimal places'],
      ['-1', 'above zero'],
    ] as const) {
      await amount.fill(bad);
      await page.getByRole('button', { name: 'Deposit', exact: true }).click();
      await waitForText(page.locator('.sandbox-card .field-error'), message);
    }
    assert.equal(deposits, 0, 'an invalid amount reached the server');
    await amount.fill('1000');
    await page.getByRole('button', { name: 'Deposit', exact: true }).click();
    await waitForText(page.getByTestId('master-balance'), '1,000.00 USDC');
    await waitForText(page.getByTestId('deposits'), '+1,000.00 USDC');
    assert.equal(deposits, 1);
    await shot(page, '02-master-wallet');
  });

  it('creates agent wallets; a label with markup renders as text and runs nothing', async () => {
    await page.getByRole('link', { name: 'Agent wallets', exact: true }).click();
    await page.getByRole('heading', { name: 'Agent wallets', level: 1 }).waitFor();
    for (const label of ['Trading bot', XSS_LABEL]) {
      await page.getByLabel('Label', { exact: true }).fill(label);
      await page.getByRole('button', { name: 'Create wallet' }).click();
      await page.getByTestId('wallet-link').filter({ hasText: label }).waitFor();
    }
    const literal = await text(page.getByTestId('wallet-link').filter({ hasText: '<img' }));
    assert.equal(literal, XSS_LABEL);
    assert.equal(await page.locator('img[src="x"]').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
    await shot(page, '03-agent-wallets');
  });

  it('keeps the session across a reload', async () => {
    await page.reload();
    await page.getByTestId('wallet-link').filter({ hasText: 'Trading bot' }).waitFor();
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
    const stored = await page.evaluate(() => Object.keys(sessionStorage));
    assert.deepEqual(stored, ['agent-wallet.session']);
    assert.deepEqual(await page.evaluate(() => Object.keys(localStorage)), [], 'nothing in localStorage');
  });

  it('opens a wallet on its activity and funds it through "Move money"', async () => {
    await page.getByTestId('wallet-link').filter({ hasText: 'Trading bot' }).click();
    await page.getByRole('heading', { name: 'Trading bot', level: 1 }).waitFor();
    await page.getByTestId('spend-chart').waitFor();
    await waitForText(page.getByTestId('caps'), 'No spending caps');
    assert.equal(await page.getByLabel('Fund from master wallet').count(), 0, 'moving money is an action');
    await page.getByRole('button', { name: 'Move money' }).click();
    const dialog = page.getByRole('dialog', { name: /^Move money/ });
    await dialog.getByLabel('Fund from master wallet').fill('100');
    await dialog.getByRole('button', { name: 'Fund', exact: true }).click();
    await waitForText(page.getByTestId('agent-balance'), '100.00 USDC');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'detached' });
    await waitForText(page.getByTestId('tx-list'), '+100.00 USDC');
    await waitForText(page.getByTestId('tx-list'), 'From the master wallet');
  });

  it('creates an API key and shows it exactly once', async () => {
    await page.getByTestId('tab-keys').click();
    await page.getByLabel('Key label').fill('production agent');
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Copy your new API key' });
    await dialog.waitFor();
    apiKey = await page.getByTestId('new-key-value').inputValue();
    assert.match(apiKey, /^svc_live_[0-9A-Za-z]{32,}$/);
    await waitForText(page.getByTestId('key-warning'), 'never be shown again');
    assert.equal(
      await page.evaluate(() => document.activeElement?.getAttribute('aria-label')),
      'Copy API key',
      'focus starts inside the dialog',
    );
    await shot(page, '05-key-shown-once', false);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    const item = page.getByTestId('key-item').filter({ hasText: 'production agent' });
    await waitForText(item, apiKey.slice(0, 12));
    assert.equal((await page.content()).includes(apiKey), false, 'the key is still on the page');
  });

  it("shows the agent's payment in the wallet's history with its audit trail", async () => {
    const paid = await callTool(base, apiKey, 'send_payment', { toAddress: EXTERNAL_ADDRESS, amount: '5' });
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    assert.equal(paid.body.data?.status, 'completed');
    await page.getByTestId('tab-activity').click();
    await page.getByRole('button', { name: 'Refresh' }).click();
    const payment = page.getByTestId('tx-item').filter({ hasText: '−5.00 USDC' });
    await payment.waitFor();
    await waitForText(payment, 'Payment');
    // Time with seconds, the counterparty shortened, no rail repeated on every row.
    assert.match(await text(payment.locator('time')), /\d{1,2}:\d{2}:\d{2}/);
    assert.match(await text(payment), /0xababab…ababab/i);
    assert.doesNotMatch(await text(page.getByTestId('tx-list')), /sandbox/i);
    await payment.getByRole('button', { name: 'Audit trail' }).click();
    await waitForText(payment.getByTestId('audit-trail'), 'API key ‘production agent’');
    assert.doesNotMatch(await text(payment.getByTestId('audit-trail')), /key_|usr_|user:/);
    await waitForText(page.getByTestId('chart-total-completed'), '5.00 USDC');
    await waitForText(page.getByTestId('agent-balance'), '95.00 USDC', POLL_WAIT);
    await shot(page, '04-agent-wallet-transactions');
  });

  it('adds a require_approval_above policy, with inline validation first', async () => {
    await page.getByTestId('tab-policies').click();
    let posts = 0;
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/policies')) posts += 1;
    });
    await page.getByLabel('Policy type').selectOption('require_approval_above');
    const amount = page.getByLabel('Approval needed above');
    await amount.fill('007');
    await page.getByRole('button', { name: 'Add policy' }).click();
    await waitForText(page.locator('.create-policy .field-error'), 'leading zeros');
    assert.equal(posts, 0);
    await page.getByLabel('Policy type').selectOption('address_allowlist');
    await page.getByLabel('Allowed addresses (one a line)').fill('0x1234');
    await page.getByRole('button', { name: 'Add policy' }).click();
    await waitForText(page.locator('.create-policy .field-error'), '40 hex digits');
    assert.equal(posts, 0);
    await page.getByLabel('Policy type').selectOption('require_approval_above');
    await page.getByLabel('Approval needed above').fill('10');
    await page.getByRole('button', { name: 'Add policy' }).click();
    await waitForText(page.getByTestId('policy-list'), 'Payments above 10.00 USDC need your approval');
    assert.equal(posts, 1);
    await shot(page, '04-agent-wallet-policies');
  });

  it('shows the approvals badge without a reload when agents ask, then approves and rejects', async () => {
    await page.evaluate(() => {
      (window as unknown as { __noReload?: boolean }).__noReload = true;
    });
    const held = await callTool(base, apiKey, 'send_payment', {
      toAddress: EXTERNAL_ADDRESS,
      amount: '20',
      memo: 'GPU hours',
    });
    assert.equal(held.body.data?.status, 'pending', JSON.stringify(held.body));
    const asked = await callTool(base, apiKey, 'request_approval', {
      toAddress: EXTERNAL_ADDRESS,
      amount: '15',
      reason: 'Invoice <b>#42</b> is due',
    });
    assert.equal(asked.body.data?.status, 'pending', JSON.stringify(asked.body));

    const badge = page.getByTestId('approvals-badge');
    await page.waitForSelector('[data-testid="approvals-badge"][data-count="2"]', { timeout: POLL_WAIT });
    assert.equal(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload), true);

    await page.getByTestId('nav-approvals').click();
    await page.getByRole('heading', { name: 'Approvals', level: 1 }).waitFor();
    const items = page.getByTestId('approval-item');
    await items.nth(1).waitFor();
    const asking = items.filter({ hasText: '15.00 USDC' });
    assert.equal(await text(asking.getByTestId('approval-reason')), 'Invoice <b>#42</b> is due');
    await waitForText(asking.getByTestId('approval-why'), 'The agent asked for your approval');
    const heldItem = items.filter({ hasText: '20.00 USDC' });
    await waitForText(
      heldItem.getByTestId('approval-why'),
      '20.00 USDC is above your 10.00 USDC approval threshold.',
    );
    const inbox = await text(page.locator('.inbox'));
    assert.doesNotMatch(inbox, /10\.000000|pol_|policy /, 'server words or ids in the inbox');
    assert.match(
      await text(heldItem.getByTestId('approval-expiry')),
      /^(\d+ days?( \d+ h)?|\d+ h( \d+ min)?) left$/,
    );
    await shot(page, '06-approvals');

    // Keyboard: the item takes focus, `a` asks to approve it.
    await heldItem.focus();
    await page.keyboard.press('a');
    await page.getByRole('dialog', { name: 'Approve this payment?' }).waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Approve payment' }).click();
    await page.locator('.status-note', { hasText: 'approved: now completed' }).waitFor();
    await page.waitForSelector('[data-testid="approvals-badge"][data-count="1"]');

    await asking.getByRole('button', { name: 'Reject' }).click();
    const reject = page.getByRole('dialog', { name: 'Reject this payment?' });
    await reject.getByLabel('Reason for the agent (optional)').fill('Not this month');
    await reject.getByRole('button', { name: 'Reject payment' }).click();
    await page.locator('.status-note', { hasText: 'rejected: now rejected' }).waitFor();
    await badge.waitFor({ state: 'detached' });
    await waitForText(page.getByTestId('approvals-summary'), 'Nothing waits for your approval');

    await page.getByRole('link', { name: 'Agent wallets', exact: true }).click();
    await page.getByTestId('wallet-link').filter({ hasText: 'Trading bot' }).click();
    const approved = page.getByTestId('tx-item').filter({ hasText: '−20.00 USDC' });
    await waitForText(approved, 'completed');
    await waitForText(page.getByTestId('agent-balance'), '75.00 USDC');
  });

  it('shows rejected payments as money that did not move, and the chart with the right totals', async () => {
    const rejected = page.locator('[data-testid="tx-item"][data-status="rejected"]');
    await waitForText(rejected, '15.00 USDC');
    assert.equal(await rejected.getAttribute('data-moved'), 'false');
    const amount = await text(rejected.getByTestId('tx-amount'));
    assert.doesNotMatch(amount, /[−+-]/, `a rejected payment shown as a debit: ${amount}`);
    assert.equal(await rejected.getByTestId('tx-amount').locator('s').count(), 1, 'struck through');
    // 5 paid by the agent, 20 approved and paid, 15 rejected: funding is not spending.
    await waitForText(page.getByTestId('chart-total-completed'), '25.00 USDC');
    await waitForText(page.getByTestId('chart-total-rejected'), '15.00 USDC');
    await waitForText(page.getByTestId('chart-total-waiting'), '0.00 USDC');
    assert.ok(
      (await page.locator('[data-testid="spend-chart"] .recharts-bar-rectangle').count()) >= 2,
      'no bars',
    );
    await shot(page, '04-agent-wallet-activity');
  });

  it('exports the transactions shown as CSV, also filtered', async () => {
    const shown = await page.getByTestId('tx-item').count();
    const all = await downloadOf(page, () => page.getByRole('button', { name: 'Export CSV' }).click());
    assert.match(all.name, /^transactions-trading-bot-\d{4}-\d{2}-\d{2}\.csv$/);
    const rows = csvRows(all.text);
    assert.equal(rows[0]?.[0], 'created_at');
    assert.equal(rows.length - 1, shown, 'one line per row shown');
    const statuses = await page
      .getByTestId('tx-item')
      .evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.status));
    assert.deepEqual(
      rows.slice(1).map((row) => row[3]),
      statuses,
    );
    assert.ok(
      rows.some((row) => row[5] === '20.000000' && row[4] === 'out'),
      'exact amounts, direction apart',
    );

    await page
      .getByRole('group', { name: 'Filter transactions' })
      .getByLabel('Status')
      .selectOption('rejected');
    await waitForText(page.getByTestId('tx-count'), '1 shown');
    const filtered = csvRows(
      (await downloadOf(page, () => page.getByRole('button', { name: 'Export CSV' }).click())).text,
    );
    assert.equal(filtered.length, 2);
    assert.equal(filtered[1]?.[3], 'rejected');
    assert.equal(filtered[1]?.[4], 'none');
    await page.getByRole('group', { name: 'Filter transactions' }).getByLabel('Status').selectOption('');
  });

  it('exports every wallet’s transactions as one CSV from the overview', async () => {
    // What the server holds for this person's wallets (the two created above), read as the owner.
    const token = await page.evaluate(
      () => (JSON.parse(sessionStorage.getItem('agent-wallet.session') ?? '{}') as { token: string }).token,
    );
    const api = async (path: string) => {
      const response = await fetch(`${base}/api/v1${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.ok(response.ok, `GET ${path}: ${response.status}`);
      return ((await response.json()) as { data: Record<string, unknown> }).data;
    };
    const wallets = (await api('/agent-wallets?limit=100')).items as { id: string; label: string }[];
    assert.deepEqual(wallets.map((wallet) => wallet.label).sort(), [XSS_LABEL, 'Trading bot'].sort());
    const expected: string[][] = [];
    for (const wallet of wallets) {
      const list = await api(`/agent-wallets/${wallet.id}/transactions?limit=100`);
      const txs = list.transactions as { id: string; status: string; amount: string; createdAt: string }[];
      assert.equal(txs.length, list.total, 'one page holds them all');
      for (const tx of txs) expected.push([tx.id, wallet.label, tx.status, tx.amount, tx.createdAt]);
    }
    assert.ok(expected.length >= 4, `only ${expected.length} transactions`);

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Agent wallets', exact: true })
      .click();
    await page.getByRole('heading', { name: 'Agent wallets', level: 1 }).waitFor();
    const file = await downloadOf(page, () =>
      page.getByRole('button', { name: 'Export all transactions (CSV)' }).click(),
    );
    assert.match(file.name, /^transactions-all-wallets-\d{4}-\d{2}-\d{2}\.csv$/);
    const rows = csvRows(file.text);
    assert.deepEqual(rows[0], [
      'created_at',
      'wallet',
      'type',
      'status',
      'direction',
      'amount',
      'currency',
      'counterparty',
      'to_address',
      'resource',
      'memo',
      'reason',
      'tx_hash',
      'transaction_id',
      'protocol',
      'scheme',
      'authorized_amount',
      'receipt',
    ]);
    const exported = rows.slice(1).map((row) => [row[13], row[1], row[3], row[5], row[0]]);
    const byId = (a: (string | undefined)[], b: (string | undefined)[]) =>
      String(a[0]).localeCompare(String(b[0]));
    assert.deepEqual(
      [...exported].sort(byId),
      [...expected].sort(byId),
      'one line per transaction, each as stored',
    );
    const times = exported.map((row) => String(row[4]));
    assert.deepEqual(times, [...times].sort().reverse(), 'newest first');
    await waitForText(
      page.getByRole('status').filter({ hasText: 'Exported' }),
      `Exported ${expected.length} transactions.`,
    );
    await page.getByTestId('wallet-link').filter({ hasText: 'Trading bot' }).click();
    await page.getByRole('heading', { name: 'Trading bot', level: 1 }).waitFor();
  });

  it('rotates the key with a grace period, then revokes both; the agent is refused from then on', async () => {
    await page.getByTestId('tab-keys').click();
    const original = page.getByTestId('key-item').filter({ hasText: apiKey.slice(0, 15) });
    await original.getByRole('button', { name: 'Rotate' }).click();
    const rotate = page.getByRole('dialog', { name: /Rotate the key/ });
    await rotate.getByLabel('Old key stops working').selectOption({ label: 'After 5 minutes' });
    await rotate.getByRole('button', { name: 'Rotate key' }).click();
    const shown = page.getByRole('dialog', { name: 'Copy your new API key' });
    await shown.waitFor();
    const newKey = await page.getByTestId('new-key-value').inputValue();
    assert.notEqual(newKey, apiKey);
    await waitForText(page.getByTestId('rotation-note'), 'keeps working until');
    await shown.getByRole('button', { name: 'I have stored the key' }).click();
    await shown.waitFor({ state: 'detached' });
    await page.waitForSelector('[data-testid="key-item"][data-status="rotating"]');
    const during = await callTool(base, apiKey, 'check_balance', {});
    assert.equal(during.status, 200, 'the old key works during the grace period');

    for (const [key, button] of [
      [newKey, 'Revoke'],
      [apiKey, 'Revoke now'],
    ] as const) {
      const item = page.getByTestId('key-item').filter({ hasText: key.slice(0, 15) });
      await item.getByRole('button', { name: button, exact: true }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Revoke key' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.waitForSelector(
        `[data-testid="key-item"][data-status="revoked"] >> text=${key.slice(0, 15)}`,
      );
      const refused = await callTool(base, key, 'send_payment', { toAddress: EXTERNAL_ADDRESS, amount: '1' });
      assert.equal(refused.status, 401);
      assert.equal(refused.body.error?.code, 'MCP_AUTH_INVALID');
    }
    await shot(page, '04-agent-wallet-keys');
  });

  it('withdraws, and freezes and unfreezes the wallet after confirming', async () => {
    await page.getByTestId('tab-activity').click();
    await page.getByRole('button', { name: 'Move money' }).click();
    const move = page.getByRole('dialog', { name: /^Move money/ });
    await move.getByLabel('Withdraw to master wallet').fill('76');
    await move.getByRole('button', { name: 'Withdraw', exact: true }).click();
    await waitForText(page.locator('form[aria-label="Withdraw"] .field-error'), 'more than');
    await move.getByLabel('Withdraw to master wallet').fill('5');
    await move.getByRole('button', { name: 'Withdraw', exact: true }).click();
    await waitForText(page.getByTestId('agent-balance'), '70.00 USDC');
    await page.keyboard.press('Escape');
    await move.waitFor({ state: 'detached' });
    await waitForText(page.getByTestId('tx-list'), 'Withdrawal');
    await page.getByTestId('tab-settings').click();

    const funded = await callTool(base, apiKey, 'check_balance', {});
    assert.equal(funded.status, 401, 'the revoked key stays refused');
    await page.getByRole('button', { name: 'Freeze wallet' }).click();
    const dialog = page.getByRole('dialog', { name: /^Freeze/ });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Freeze wallet' }).click();
    await dialog.getByRole('button', { name: 'Freeze', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('.title-row .tag-frozen').waitFor();
    await page.getByRole('button', { name: 'Unfreeze wallet' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Unfreeze', exact: true }).click();
    await page.locator('.title-row .tag-frozen').waitFor({ state: 'detached' });
  });

  it('fits a 390 px phone screen without horizontal scrolling, under a compact header', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByTestId('tab-activity').click();
    await page.getByTestId('tx-list').waitFor();
    await page.getByTestId('spend-chart').locator('.recharts-bar-rectangle').first().waitFor();
    await noHorizontalScroll(page);
    const header = await page.evaluate(() => {
      const bottom = document.querySelector('.topbar')?.getBoundingClientRect().bottom ?? 0;
      return Math.round(bottom + window.scrollY);
    });
    assert.ok(header <= 110, `the header (with the banner) takes ${header} px`);
    const chartTop = await page
      .getByTestId('spend-chart')
      .evaluate((el) => el.getBoundingClientRect().top + window.scrollY);
    assert.ok(chartTop < 844 * 1.5, `the chart starts ${chartTop} px down`);
    await shot(page, '07-phone-agent-wallet');
    for (const [link, name] of [
      ['Agent wallets', '07-phone-agent-wallets'],
      ['Approvals', '07-phone-approvals'],
      ['Webhooks', '07-phone-webhooks'],
      ['Master wallet', '07-phone-master-wallet'],
    ] as const) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link }).click();
      await page
        .getByRole('heading', { level: 1, name: link === 'Master wallet' ? 'Master wallet' : link })
        .waitFor();
      await noHorizontalScroll(page);
      await shot(page, name);
    }
    await page.getByTestId('master-balance').waitFor();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await shot(page, '12-webhooks');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Master wallet' }).click();
    await page.getByTestId('master-balance').waitFor();
  });

  it('logs out; the session is gone, also after a reload', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await waitForText(page.getByTestId('auth-notice'), 'You have logged out.');
    assert.deepEqual(await page.evaluate(() => Object.keys(sessionStorage)), []);
    await page.reload();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
  });

  it('logs in by keyboard alone (and shows a 429 on login in words)', async () => {
    await page.goto(`${base}/login`);
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    let refused = false;
    await page.route('**/api/v1/auth/login', async (route) => {
      if (refused) return route.continue();
      refused = true;
      return route.fulfill({
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '3' },
        body: JSON.stringify({
          success: false,
          error: { code: 'RATE_LIMITED', message: 'rate limit exceeded' },
        }),
      });
    });
    const emailField = page.getByLabel('Email');
    for (let i = 0; i < 10 && !(await emailField.evaluate((el) => el === document.activeElement)); i += 1) {
      await page.keyboard.press('Tab');
    }
    assert.ok(
      await emailField.evaluate((el) => el === document.activeElement),
      'Tab never reached the email field',
    );
    const outline = await emailField.evaluate((el) => getComputedStyle(el).outlineStyle);
    assert.notEqual(outline, 'none', 'no visible focus on the email field');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    assert.ok(await page.getByLabel('Password').evaluate((el) => el === document.activeElement));
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await waitForText(page.getByRole('alert'), 'Too many requests — try again in');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.unroute('**/api/v1/auth/login');
  });

  it('waits out a 429 on a read and retries by itself', async () => {
    await page.getByRole('link', { name: 'Agent wallets', exact: true }).click();
    await page.getByTestId('wallet-link').filter({ hasText: 'Trading bot' }).waitFor();
    let refused = 0;
    await page.route('**/api/v1/agent-wallets?*', async (route) => {
      if (refused > 0) return route.continue();
      refused += 1;
      return route.fulfill({
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '2' },
        body: JSON.stringify({
          success: false,
          error: { code: 'RATE_LIMITED', message: 'rate limit exceeded' },
        }),
      });
    });
    await page.reload();
    await waitForText(page.getByTestId('rate-limit-banner'), 'Too many requests — retrying in');
    await shot(page, '08-rate-limited');
    await page.getByTestId('wallet-link').filter({ hasText: 'Trading bot' }).waitFor({ timeout: 6000 });
    await page.getByTestId('rate-limit-banner').waitFor({ state: 'detached' });
    assert.equal(refused, 1);
    await page.unroute('**/api/v1/agent-wallets?*');
  });

  it("shows the real server's 429 on a write in words, with its Retry-After", async () => {
    const strict = await startServer({ ...GENEROUS_LIMITS, signup: 1 });
    const context = await browser.newContext();
    try {
      const tab = await context.newPage();
      tab.setDefaultTimeout(STEP_TIMEOUT);
      for (const [index, expectSuccess] of [
        [1, true],
        [2, false],
      ] as const) {
        await tab.goto(`${strict.baseUrl}/signup`);
        await tab.getByLabel('Email').fill(`limited-${index}-${Date.now()}@example.com`);
        await tab.getByLabel('Password').fill(PASSWORD);
        await tab.getByRole('button', { name: 'Create account' }).click();
        if (expectSuccess) {
          await tab.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
          await tab.evaluate(() => sessionStorage.clear());
        } else {
          await waitForText(tab.getByRole('alert'), 'Too many requests — try again in');
          const message = await text(tab.getByRole('alert'));
          const seconds = Number(/in (\d+) s/.exec(message)?.[1]);
          assert.ok(seconds >= 1 && seconds <= 60, message);
        }
      }
    } finally {
      await context.close();
      await strict.stop();
    }
  });

  it('raised no script errors and no Content Security Policy violation (charts included)', () => {
    assert.deepEqual(cspViolations, []);
    assert.deepEqual(consoleErrors, []);
  });

  // The journey above is some 30 person-actions squeezed into half a minute: about one request per action,
  // one poll, no per-wallet polling, no refetch storms. (E2E_TRACE=1 prints every request.)
  it('spends about one REST request per action (no refetch storms)', () => {
    const ceilings = { agent_wallets: 40, wallet: 12 };
    for (const [bucket, hits] of Object.entries(bucketHits)) {
      const busiest = Math.max(
        0,
        ...hits.map((start) => hits.filter((t) => t >= start && t < start + 60_000).length),
      );
      console.log(`# ${bucket}: ${hits.length} requests in the journey, at most ${busiest} in any 60 s`);
      assert.ok(
        busiest <= ceilings[bucket as keyof typeof ceilings],
        `${bucket}: ${busiest} requests in 60 s`,
      );
    }
  });
});

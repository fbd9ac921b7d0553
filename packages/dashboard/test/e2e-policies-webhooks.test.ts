// End-to-end: spending controls and webhooks in the dashboard, against the real server (child process, sandbox
// rail, WEBHOOK_ALLOW_PRIVATE=true so it may deliver to a receiver on 127.0.0.1 over http) in headless Chromium.
// One journey: a window cap is added in the browser, a payment that breaks it is tried and explained in the
// dashboard's own words, the change is in History; a webhook endpoint is added (its secret shown once), an
// event reaches the local receiver signed with that secret, the log shows it delivered, and it is redelivered;
// the endpoint's events and description are edited in a dialog.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
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

/** The webhook worker looks every second; a busy machine gets slack. */
const DELIVERY_WAIT = 20_000;
const EXTERNAL_ADDRESS = `0x${'ab'.repeat(20)}`;
const PASSWORD = 'correct horse battery staple';

/** Waits until the locator's text contains `expected`. */

async function waitUntil(what: string, condition: () => boolean, timeout = DELIVERY_WAIT) {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeout) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on 127.0.0.1 that answers 200 to every POST and keeps what it got. */
async function startReceiver(): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/agent-wallet`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function signUp(page: Page, base: string, email: string) {
  await page.goto(`${base}/signup`);
  await page.getByRole('heading', { name: 'Create an account' }).waitFor();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
}

describe('dashboard end to end: spending controls and webhooks', { skip: CHROMIUM_SKIP }, () => {
  let server: RunningServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let browser: Browser;
  let page: Page;
  let base: string;
  let token = '';
  let walletId = '';
  let apiKey = '';
  let secret = '';
  const consoleErrors: string[] = [];

  /** The REST API as the owner, for setting the scene (money, a wallet, a key) and triggering events. */
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

  before(async () => {
    requireChromium();
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    ensureBuilt();
    receiver = await startReceiver();
    server = await startServer(GENEROUS_LIMITS, { WEBHOOK_ALLOW_PRIVATE: 'true' });
    base = server.baseUrl;
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(STEP_TIMEOUT);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    page.on('pageerror', (error) => consoleErrors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      // Refusals the journey causes on purpose (a 422 payment, 400s) are not page errors.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        consoleErrors.push(message.text());
      }
    });
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
  });

  it('signs up; a funded agent wallet with an API key is ready', async () => {
    await signUp(page, base, `e2e-controls-${Date.now()}@example.com`);
    token = await page.evaluate(
      () => (JSON.parse(sessionStorage.getItem('agent-wallet.session') ?? '{}') as { token: string }).token,
    );
    assert.ok(token.length > 20);
    await rest('POST', '/wallet/sandbox/deposit', { amount: '1000' });
    walletId = String((await rest('POST', '/agent-wallets', { label: 'Shopping agent' })).id);
    await rest(
      'POST',
      `/agent-wallets/${walletId}/fund`,
      { amount: '200' },
      { 'idempotency-key': 'e2e-fund-1' },
    );
    apiKey = String((await rest('POST', `/agent-wallets/${walletId}/keys`, { label: 'shopper' })).key);
    assert.match(apiKey, /^svc_/);
    await page.goto(`${base}/agents/${walletId}?tab=policies`);
    await page.getByRole('heading', { name: 'Shopping agent', level: 1 }).waitFor();
    await waitForText(page.getByTestId('agent-balance'), '200.00 USDC');
  });

  it('adds a spend_cap_window policy, checking the form inline before sending', async () => {
    let posts = 0;
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/policies')) posts += 1;
    });
    const form = page.getByRole('form', { name: 'Add a policy' });
    await form.getByLabel('Policy type').selectOption('spend_cap_window');
    await form.getByLabel('Limit', { exact: true }).fill('1e2');
    await form.getByRole('button', { name: 'Add policy' }).click();
    await waitForText(form.locator('.field-error'), 'exponent');
    assert.equal(posts, 0);
    await form.getByLabel('Limit', { exact: true }).fill('100');
    await form.getByLabel('Period').selectOption('24h');
    await form.getByRole('button', { name: 'Add policy' }).click();
    await waitForText(page.getByTestId('policy-list'), 'At most 100.00 USDC per 24 hours');
    assert.equal(posts, 1);
  });

  it('adds and deletes a time_window policy; the timezone is the browser’s by default', async () => {
    let posts = 0;
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/policies')) posts += 1;
    });
    const form = page.getByRole('form', { name: 'Add a policy' });
    await form.getByLabel('Policy type').selectOption('time_window');
    const browserZone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    assert.equal(await form.getByLabel('Timezone').inputValue(), browserZone);
    await form.getByLabel('Until (HH:MM)').fill('9:00');
    await form.getByLabel('Timezone').fill('Mars/Olympus_Mons');
    await form.getByRole('button', { name: 'Add policy' }).click();
    await waitForText(form.locator('.field-error').first(), 'The end must differ from the start');
    await waitForText(form, 'Not a timezone this browser knows');
    assert.equal(posts, 0);
    await form.getByLabel('Until (HH:MM)').fill('17:00');
    await form.getByLabel('Timezone').fill('Europe/Berlin');
    await form.getByRole('button', { name: 'Add policy' }).click();
    const item = page.getByTestId('policy-item').filter({ hasText: 'Allowed hours' });
    await waitForText(item, 'Mon–Fri 09:00–17:00 (Europe/Berlin)');
    assert.equal(posts, 1);
    await shot(page, '09-policies-new-types');
    // Deleted again, so the payments below depend on the window cap alone, whatever the time of day.
    await item.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete “Allowed hours”?' });
    await dialog.getByRole('button', { name: 'Delete policy' }).click();
    await dialog.waitFor({ state: 'detached' });
    await item.waitFor({ state: 'detached' });
  });

  it('tries a payment over the cap: denied, in the dashboard’s own words, and nothing stored', async () => {
    const before = (await rest('GET', `/agent-wallets/${walletId}/transactions`)).total;
    const form = page.getByRole('form', { name: 'Try a payment' });
    await form.getByLabel('Recipient address').fill('0x1234');
    await form.getByRole('button', { name: 'Check payment' }).click();
    await form.locator('.field-error', { hasText: '40 hex digits' }).waitFor();
    await form.locator('.field-error', { hasText: 'Enter an amount.' }).waitFor();
    await form.getByLabel('Recipient address').fill(EXTERNAL_ADDRESS);
    await form.getByLabel('Amount').fill('150');
    await form.getByRole('button', { name: 'Check payment' }).click();
    const result = page.locator('[data-testid="simulation-result"][data-outcome="denied"]');
    await result.waitFor();
    await waitForText(result, 'Denied by a policy');
    await waitForText(
      result.getByTestId('simulation-violations'),
      'Spending cap per period: Over the 100.00 USDC 24-hour budget (would reach 150.00)',
    );
    assert.doesNotMatch(
      (await result.textContent()) ?? '',
      /150\.000000|limit 100/,
      'the server’s raw words',
    );
    await waitForText(result.getByTestId('simulation-balance'), '200.00 USDC');
    await shot(page, '10-policies-try-a-payment');

    await form.getByLabel('Amount').fill('50');
    await form.getByRole('button', { name: 'Check payment' }).click();
    const pass = page.locator('[data-testid="simulation-result"][data-outcome="pass"]');
    await pass.waitFor();
    await waitForText(pass, 'Would pass');
    await waitForText(pass.getByTestId('simulation-balance'), '150.00 USDC');
    const txs = await rest('GET', `/agent-wallets/${walletId}/transactions`);
    assert.equal(txs.total, before, 'a simulation stored a transaction');
  });

  it('shows every change in History, in words', async () => {
    const history = page.getByTestId('policy-history');
    await waitForText(history, 'Spending cap per period: At most 100.00 USDC per 24 hours');
    await waitForText(history, 'Allowed hours: Mon–Fri 09:00–17:00 (Europe/Berlin)');
    const actions = await page
      .getByTestId('policy-change')
      .evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.action));
    assert.deepEqual(actions, ['deleted', 'created', 'created']);

    const cap = page.getByTestId('policy-item').filter({ hasText: 'Spending cap per period' });
    await cap.getByRole('button', { name: /^Edit/ }).click();
    const edit = cap.getByRole('form', { name: 'Edit policy' });
    await edit.getByLabel('Limit', { exact: true }).fill('120');
    await edit.getByRole('button', { name: 'Save' }).click();
    await waitForText(cap.getByTestId('policy-summary'), 'At most 120.00 USDC per 24 hours');
    await waitForText(
      page.getByTestId('policy-change').first(),
      'from “At most 100.00 USDC per 24 hours” to “At most 120.00 USDC per 24 hours”',
    );
    await waitForText(page.getByTestId('policy-change').first(), 'Changed');
    await shot(page, '11-policies-history');
  });

  it('explains the agent’s denied payment in the transaction list with the same words', async () => {
    const paid = await callTool(base, apiKey, 'send_payment', { toAddress: EXTERNAL_ADDRESS, amount: '150' });
    assert.equal(paid.body.error?.code, 'POLICY_DENIED', JSON.stringify(paid.body));
    await page.getByTestId('tab-activity').click();
    await page.getByRole('button', { name: 'Refresh' }).click();
    const denied = page.locator('[data-testid="tx-item"][data-status="rejected"]');
    await waitForText(
      denied.getByTestId('tx-violations'),
      'Over the 120.00 USDC 24-hour budget (would reach 150.00)',
    );
    await denied.getByRole('button', { name: 'Audit trail' }).click();
    await waitForText(denied.getByTestId('audit-trail'), 'Denied by a policy');
  });

  it('adds a webhook endpoint from the main navigation; the secret is shown once', async () => {
    let posts = 0;
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/api/v1/webhooks')) posts += 1;
    });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByText('No endpoints yet').waitFor();
    const form = page.getByRole('form', { name: 'Add a webhook endpoint' });
    await form.getByLabel('Endpoint URL').fill('ftp://hooks.example.com/x');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await waitForText(form.locator('.field-error'), 'Use an https:// URL');
    assert.equal(posts, 0);
    await form.getByLabel('Endpoint URL').fill(receiver.url);
    await form.getByLabel('Description (optional)').fill('e2e receiver');
    assert.ok(await form.getByRole('checkbox', { name: /All events/ }).isChecked(), 'all events by default');
    await form.getByRole('button', { name: 'Add endpoint' }).click();

    const dialog = page.getByRole('dialog', { name: 'Copy your webhook signing secret' });
    await dialog.waitFor();
    await waitForText(dialog.getByTestId('secret-warning'), 'you will not see it again');
    secret = await dialog.getByTestId('webhook-secret').inputValue();
    assert.match(secret, /^whsec_[A-Za-z0-9]{20,}$/);
    await dialog.getByRole('button', { name: 'Copy signing secret' }).click();
    await waitForText(dialog.locator('.copy-status'), 'Copied to the clipboard.');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
    await shot(page, '12-webhook-secret-once');
    await dialog.getByRole('button', { name: 'I have stored the secret' }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.equal(posts, 1);

    const item = page.getByTestId('webhook-item');
    await waitForText(item.getByTestId('webhook-url'), receiver.url);
    await waitForText(item.getByTestId('webhook-events'), 'All events');
    assert.equal((await page.content()).includes(secret), false, 'the secret is still on the page');
    await page.reload();
    await page.getByTestId('webhook-item').waitFor();
    assert.equal((await page.content()).includes(secret), false, 'the secret came back after a reload');
  });

  it('delivers an event signed with that secret; the log shows it delivered; redelivers it', async () => {
    await rest('POST', `/agent-wallets/${walletId}/freeze`);
    await waitUntil('the receiver to get the event', () => receiver.received.length >= 1);
    const first = receiver.received[0]!;
    const event = JSON.parse(first.body) as { id: string; type: string };
    assert.equal(event.type, 'wallet.frozen');
    const signature = String(first.headers['agent-wallet-signature']);
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(signature) ?? [];
    assert.ok(t !== undefined && v1 !== undefined, signature);
    assert.equal(v1, createHmac('sha256', secret).update(`${t}.${first.body}`).digest('hex'));

    const item = page.getByTestId('webhook-item');
    await item.getByRole('button', { name: 'Delivery log' }).click();
    const log = item.getByTestId('delivery-log');
    const delivered = log.locator('[data-testid="delivery-item"][data-status="delivered"]');
    await delivered.first().waitFor({ timeout: DELIVERY_WAIT });
    // A table with aligned columns, like the transactions.
    const headers = await log.getByRole('columnheader').allTextContents();
    assert.deepEqual(headers, ['Time', 'Event', 'Status', 'Attempts', 'Last answer', 'Actions']);
    await waitForText(delivered.first(), 'wallet.frozen');
    await waitForText(delivered.first().getByTestId('delivery-response'), 'HTTP 200');
    assert.equal(await delivered.first().getByTestId('delivery-attempts').textContent(), '1');
    const time = delivered.first().locator('time');
    assert.match((await time.textContent()) ?? '', /\d{1,2}:\d{2}:\d{2}/, 'the time shows seconds');
    assert.ok(Number.isFinite(Date.parse((await time.getAttribute('datetime')) ?? '')));
    const relative = (await delivered.first().locator('.tx-time .hint').textContent()) ?? '';
    assert.match(relative, /^(now|\d+ (seconds?|minutes?) ago)$/, 'how long ago, beside the time');
    // The status filter: nothing failed, then every delivery again (no request: the page is loaded).
    const filter = log.getByRole('group', { name: 'Filter deliveries' }).getByLabel('Status');
    await filter.selectOption('failed');
    await waitForText(log, 'No deliveries on this page match this status.');
    assert.equal(await log.getByTestId('delivery-item').count(), 0);
    await filter.selectOption('delivered');
    await delivered.first().waitFor();
    await waitForText(log.getByTestId('delivery-count'), '(filtered)');
    await filter.selectOption('');
    await shot(page, '13-webhook-delivery-log');

    await delivered.first().getByRole('button', { name: 'Redeliver wallet.frozen' }).click();
    await waitForText(log, 'wallet.frozen is queued to be sent again.');
    await waitUntil('the redelivery', () => receiver.received.length >= 2);
    const again = JSON.parse(receiver.received[1]!.body) as { id: string };
    assert.equal(again.id, event.id, 'a redelivery carries the same event id');
    // The open log looks again by itself while a delivery is on its way.
    await waitForText(
      log
        .locator('[data-testid="delivery-item"][data-status="delivered"]')
        .first()
        .getByTestId('delivery-attempts'),
      '2',
      DELIVERY_WAIT,
    );
    await rest('POST', `/agent-wallets/${walletId}/unfreeze`);
  });

  it('edits the endpoint’s events and description in a dialog; the list and the server have them', async () => {
    const patches: unknown[] = [];
    page.on('request', (request) => {
      if (request.method() === 'PATCH' && request.url().includes('/api/v1/webhooks/')) {
        patches.push(request.postDataJSON());
      }
    });
    const item = page.getByTestId('webhook-item');
    const edit = item.getByRole('button', { name: 'Edit' });
    const isFocused = () => edit.evaluate((button) => button === document.activeElement);
    await edit.click();
    const dialog = page.getByRole('dialog', { name: 'Edit webhook endpoint' });
    await dialog.waitFor();
    assert.equal(await dialog.getByLabel('Endpoint URL').inputValue(), receiver.url);
    assert.equal(await dialog.getByLabel('Description (optional)').inputValue(), 'e2e receiver');
    assert.ok(await dialog.getByRole('checkbox', { name: /All events/ }).isChecked());
    assert.equal(((await dialog.textContent()) ?? '').includes(secret), false, 'the secret in the dialog');
    // Escape closes without a change; focus goes back to the Edit button.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.ok(await isFocused(), 'focus is back on Edit after Escape');

    await edit.click();
    await dialog.getByRole('checkbox', { name: /All events/ }).uncheck();
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await waitForText(dialog.locator('.field-error'), 'Choose at least one event, or all events.');
    assert.equal(patches.length, 0);
    await dialog.getByRole('checkbox', { name: /^wallet\.frozen/ }).check();
    await dialog.getByRole('checkbox', { name: /^key\.revoked/ }).check();
    await dialog.getByLabel('Description (optional)').fill('e2e receiver, edited');
    await shot(page, '13b-webhook-edit');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.ok(await isFocused(), 'focus is back on Edit after saving');
    // Only the change is sent: the unchanged URL is not checked again.
    assert.deepEqual(patches, [
      { events: ['key.revoked', 'wallet.frozen'], description: 'e2e receiver, edited' },
    ]);

    await waitForText(item.getByTestId('webhook-events'), 'key.revoked, wallet.frozen');
    await waitForText(item, 'e2e receiver, edited');
    await page
      .getByRole('status')
      .filter({ hasText: `The endpoint ${receiver.url} is saved.` })
      .waitFor();
    const listed = await rest('GET', '/webhooks');
    const [stored] = listed.items as { url: string; events: string[] | null; description: string | null }[];
    assert.deepEqual(
      { url: stored?.url, events: stored?.events, description: stored?.description },
      { url: receiver.url, events: ['key.revoked', 'wallet.frozen'], description: 'e2e receiver, edited' },
    );
    assert.equal((await page.content()).includes(secret), false, 'the secret is on the page');
  });

  it('fits a 375 px phone screen without horizontal scrolling', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    await noHorizontalScroll(page);
    await page.goto(`${base}/agents/${walletId}?tab=policies`);
    await page.getByTestId('policy-history').waitFor();
    await noHorizontalScroll(page);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('deletes the endpoint after confirming', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    const item = page.getByTestId('webhook-item');
    await item.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this webhook endpoint?' });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await item.waitFor();
    await item.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Delete endpoint' }).click();
    await item.waitFor({ state: 'detached' });
    await page.getByText('No endpoints yet').waitFor();
    const listed = await rest('GET', '/webhooks');
    assert.equal(listed.total, 0);
  });

  it('shows the server’s refusal of a URL under the field (a server without WEBHOOK_ALLOW_PRIVATE)', async () => {
    const strict = await startServer(GENEROUS_LIMITS);
    const context = await browser.newContext();
    try {
      const tab = await context.newPage();
      tab.setDefaultTimeout(STEP_TIMEOUT);
      await signUp(tab, strict.baseUrl, `e2e-ssrf-${Date.now()}@example.com`);
      await tab.goto(`${strict.baseUrl}/webhooks`);
      const form = tab.getByRole('form', { name: 'Add a webhook endpoint' });
      const url = form.getByLabel('Endpoint URL');
      for (const [target, words] of [
        ['https://127.0.0.1/hook', 'The server refused this URL: it must point to a public address.'],
        ['http://hooks.example.com/hook', 'The server refused this URL: it must be an https:// URL.'],
      ] as const) {
        await url.fill(target);
        await form.getByRole('button', { name: 'Add endpoint' }).click();
        await waitForText(form.locator('.field-error'), words);
        assert.equal(await url.getAttribute('aria-invalid'), 'true');
      }
      await shot(tab, '14-webhook-url-refused');
      assert.equal(await tab.getByRole('dialog').count(), 0);
    } finally {
      await context.close();
      await strict.stop();
    }
  });

  it('raised no script errors', () => {
    assert.deepEqual(consoleErrors, []);
  });
});

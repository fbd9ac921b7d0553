// End-to-end: the owner's side of custody (issue 26) in the dashboard, against the real server (child process,
// sandbox rail) in headless Chromium with its virtual WebAuthn authenticator (CDP). The server runs with
// STEP_UP_MAX_AGE_SECONDS=10 so the journey can outlive its proof of presence, and a 3-second wait for new
// withdrawal addresses. The page is browsed at http://localhost:<port> (WebAuthn refuses IP addresses).
// One journey: a passkey is added through the Security page (the step-up dialog asks for the password), the
// login then asks for the passkey, the step-up dialog takes the passkey (adding a withdrawal address), the
// authenticator app is enrolled from its QR code's key (recovery codes shown once, copied and downloaded), money
// is withdrawn to the address (the dialog takes a recovery code), other sessions are ended.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generate } from 'otplib';
import type { Browser, Page } from 'playwright-core';
import {
  CHROMIUM_SKIP,
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

/** The server's STEP_UP_MAX_AGE_SECONDS here (its minimum); waiting past it makes the next sensitive call ask. */
const STEP_UP_AGE_SECONDS = 10;
const ADDRESS_DELAY_SECONDS = 3;
const PASSWORD = 'correct horse battery staple';
const EXTERNAL_ADDRESS = `0x${'ab'.repeat(20)}`;
const STEP_UP_DIALOG = 'Confirm it’s you';

/** Waits until the locator's text contains `expected`. */

/** Sleeps until the session's last proof of presence is older than the step-up age. */
async function outliveStepUp(provenAt: number) {
  const wait = provenAt + (STEP_UP_AGE_SECONDS + 1.5) * 1000 - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}

describe('dashboard end to end: security (second factor, step-up, sessions, withdrawals)', {
  skip: CHROMIUM_SKIP,
}, () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let base: string;
  let port = '';
  const email = `e2e-security-${Date.now()}@example.com`;
  /** When this browser session last proved presence (signup, login, step-up), by the test's clock. */
  let provenAt = 0;
  let recoveryCodes: string[] = [];
  const scriptTokens: string[] = [];
  const consoleErrors: string[] = [];
  const cspViolations: string[] = [];
  const foreignRequests: string[] = [];
  const stepUps: { status: number; kind: string }[] = [];
  const withdrawalPosts: { status: number; key: string | undefined }[] = [];

  /** Logs in from a script (another "device"), before any factor: a session the browser later ends. */
  async function scriptSession(userAgent: string): Promise<string> {
    const response = await fetch(`${server.baseUrl}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': userAgent },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    const body = (await response.json()) as { data: { token: string } };
    assert.equal(response.status, 200);
    return body.data.token;
  }

  async function meStatus(token: string): Promise<number> {
    return (
      await fetch(`${server.baseUrl}/api/v1/auth/me`, { headers: { authorization: `Bearer ${token}` } })
    ).status;
  }

  before(async () => {
    requireChromium();
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    ensureBuilt();
    server = await startServer(GENEROUS_LIMITS, {
      STEP_UP_MAX_AGE_SECONDS: String(STEP_UP_AGE_SECONDS),
      WITHDRAWAL_ADDRESS_DELAY_SECONDS: String(ADDRESS_DELAY_SECONDS),
    });
    // The passkeys' relying party is localhost (no PUBLIC_URL): browse there, not at 127.0.0.1.
    base = server.baseUrl.replace('127.0.0.1', 'localhost');
    port = new URL(base).port;
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page.setDefaultTimeout(STEP_TIMEOUT);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    page.on('pageerror', (error) => consoleErrors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
      // Refusals the journey causes on purpose (403 STEP_UP_REQUIRED, 401 MFA_REQUIRED) are not page errors.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        consoleErrors.push(message.text());
      }
    });
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (!['data:', 'blob:'].includes(url.protocol) && url.host !== `localhost:${port}`) {
        foreignRequests.push(request.url());
      }
    });
    page.on('response', (response) => {
      const request = response.request();
      const path = new URL(response.url()).pathname;
      if (request.method() === 'POST' && path === '/api/v1/auth/step-up') {
        const body = request.postDataJSON() as Record<string, unknown>;
        stepUps.push({ status: response.status(), kind: Object.keys(body).join(',') });
      }
      if (request.method() === 'POST' && path === '/api/v1/wallet/withdrawals') {
        withdrawalPosts.push({ status: response.status(), key: request.headers()['idempotency-key'] });
      }
    });
  });

  after(async () => {
    await browser?.close();
    if (server !== undefined) {
      writeFileSync(join(SCREENSHOT_DIR, '..', 'dashboard-e2e-security-server.log'), server.output());
      await server.stop();
    }
  });

  it('signs up at localhost; the Security page says two-step verification is off and lists the sessions', async () => {
    await page.goto(`${base}/signup`);
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    provenAt = Date.now();
    // Two more "devices" logged in by a script, for the end of the journey.
    scriptTokens.push(await scriptSession('e2e-script/1'), await scriptSession('e2e-script/2'));

    await page.getByRole('link', { name: 'Security' }).click();
    await page.getByRole('heading', { name: 'Security', level: 1 }).waitFor();
    await waitForText(page.getByTestId('mfa-summary'), 'Off.');
    const sessions = page.getByTestId('session');
    await waitForText(page.getByTestId('sessions'), 'e2e-script/2');
    assert.equal(await sessions.count(), 3);
    await waitForText(sessions.filter({ hasText: 'this session' }), 'Chrome on Linux');
    await waitForText(sessions.filter({ hasText: 'e2e-script/1' }), 'IP 127.0.0.1');
    await shot(page, 'security-01-page');
  });

  it('changing the password: the meter judges the new one as it is typed, and a weak one is not sent', async () => {
    const form = page.getByRole('form', { name: 'Change password' });
    const sent: string[] = [];
    const onRequest = (request: { url: () => string }) => sent.push(new URL(request.url()).pathname);
    page.on('request', onRequest);
    await form.getByLabel('Current password').fill(PASSWORD);
    await form.getByLabel('New password', { exact: true }).fill('abcdefghijkl');
    await waitForText(
      form.getByTestId('password-strength'),
      'Very easy to guess: Common character sequences',
    );
    await form.getByLabel('Repeat the new password').fill('abcdefghijkl');
    await form.getByRole('button', { name: 'Change password' }).click();
    await waitForText(form.locator('.field-error'), 'Too easy to guess.');
    page.off('request', onRequest);
    assert.deepEqual(
      sent.filter((path) => path === '/api/v1/auth/password'),
      [],
    );
    await form.getByLabel('New password', { exact: true }).fill('');
    await form.getByLabel('Repeat the new password').fill('');
    await form.getByLabel('Current password').fill('');
    assert.equal(await form.getByTestId('password-strength').count(), 0, 'no meter for an empty field');
  });

  it('adds a passkey after the step-up age: the step-up dialog asks for the password, then carries on', async () => {
    await outliveStepUp(provenAt);
    await page.getByLabel('Passkey name').fill('Test laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    const dialog = page.getByRole('dialog', { name: STEP_UP_DIALOG });
    await dialog.waitFor();
    // No factor yet: the password is the only way offered.
    assert.equal(await dialog.getByRole('button', { name: 'Use a passkey' }).count(), 0);
    await dialog.getByLabel('Your password').fill('not the password');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await waitForText(dialog.getByRole('alert'), 'That password is not right');
    await dialog.getByLabel('Your password').fill(PASSWORD);
    await shot(page, 'security-02-step-up-password');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await dialog.waitFor({ state: 'detached' });
    provenAt = Date.now();
    // The held request went again by itself: the browser created the passkey and the server registered it.
    await waitForText(page.getByTestId('passkey-list'), 'Test laptop');
    await waitForText(page.getByTestId('mfa-summary'), 'On.');
    assert.deepEqual(
      stepUps.map((s) => `${s.kind} ${s.status}`),
      ['password 401', 'password 200'],
    );
  });

  it('logs out; the login asks for the second factor and the passkey finishes it', async () => {
    await page.getByRole('button', { name: 'Log out', exact: true }).click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
    await shot(page, 'security-03-login-second-step');
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByTestId('nav-master').click();
    await page.getByTestId('master-balance').waitFor();
    provenAt = Date.now();
  });

  it('adds a withdrawal address after the step-up age: the dialog takes the passkey; the address counts down', async () => {
    // Money for the withdrawal, while the session's proof of presence grows old.
    await page.getByLabel('Amount to deposit').fill('1000');
    await page.getByRole('button', { name: 'Deposit', exact: true }).click();
    await waitForText(page.getByTestId('master-balance'), '1,000.00 USDC');
    await outliveStepUp(provenAt);

    const form = page.getByRole('form', { name: 'Add a withdrawal address' });
    await form.getByLabel('Name of the address').fill('Cold storage');
    await form.getByLabel('Address', { exact: true }).fill('0x1234');
    await form.getByRole('button', { name: 'Add address' }).click();
    await waitForText(form.locator('.field-error'), '40 hex digits');
    await form.getByLabel('Address', { exact: true }).fill(EXTERNAL_ADDRESS);
    await form.getByRole('button', { name: 'Add address' }).click();
    const dialog = page.getByRole('dialog', { name: STEP_UP_DIALOG });
    await dialog.waitFor();
    // Only a passkey is registered: no code field, no password.
    assert.equal(await dialog.getByRole('textbox').count(), 0);
    await shot(page, 'security-04-step-up-passkey');
    await dialog.getByRole('button', { name: 'Use a passkey' }).click();
    await dialog.waitFor({ state: 'detached' });
    provenAt = Date.now();
    const entry = page.getByTestId('withdrawal-address').filter({ hasText: 'Cold storage' });
    await entry.waitFor();
    assert.equal(stepUps.at(-1)?.kind, 'passkey');
    assert.equal(stepUps.at(-1)?.status, 200);
    // Pending, with a live countdown, until activatesAt; then active by itself.
    if ((await entry.getByTestId('activates-in').count()) > 0) {
      await waitForText(entry, 'pending');
      await shot(page, 'security-05-address-pending');
    }
    await waitForText(entry, 'Usable since', (ADDRESS_DELAY_SECONDS + 5) * 1000);
    await waitForText(entry, 'active');
  });

  it('turns on the authenticator app from its QR code; recovery codes are shown once, copied and downloaded', async () => {
    await page.getByRole('link', { name: 'Security' }).click();
    await page.getByRole('heading', { name: 'Security', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await stepUpWithPasskeyIfAsked();
    const qr = page.getByRole('img', { name: 'QR code to scan with your authenticator app' });
    await qr.waitFor();
    assert.match((await qr.getAttribute('src')) ?? '', /^data:image\/svg\+xml/, 'the QR code is drawn here');
    const secret = ((await page.getByTestId('totp-secret').textContent()) ?? '').replace(/\s+/g, '');
    assert.match(secret, /^[A-Z2-7]{16,}$/);
    await shot(page, 'security-06-totp-qr');
    await page.getByLabel('6-digit code from the app').fill(await generate({ secret }));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await stepUpWithPasskeyIfAsked();

    const dialog = page.getByRole('dialog', { name: 'Save your recovery codes' });
    await dialog.waitFor();
    await waitForText(dialog.getByTestId('recovery-warning'), 'you will not see them again');
    recoveryCodes = (await dialog.getByTestId('recovery-codes').locator('li').allTextContents()).map((c) =>
      c.trim(),
    );
    assert.equal(recoveryCodes.length, 10);
    await shot(page, 'security-07-recovery-codes');
    await dialog.getByRole('button', { name: 'Copy recovery codes' }).click();
    await waitForText(dialog.locator('.copy-status').first(), 'Copied to the clipboard.');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), recoveryCodes.join('\n'));
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      dialog.getByRole('button', { name: 'Download (.txt)' }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^agent-wallet-recovery-codes-\d{4}-\d{2}-\d{2}\.txt$/);
    const file = readFileSync(await download.path(), 'utf8');
    for (const code of recoveryCodes) assert.ok(file.includes(`\n${code}\n`), `${code} in the file`);
    assert.match(file, new RegExp(`for ${email.replace(/[.+]/g, '\\$&')}`));
    await dialog.getByRole('button', { name: 'I have saved my recovery codes' }).click();
    await dialog.waitFor({ state: 'detached' });
    // Once: gone from the page, and not back after a reload.
    assert.ok(!(await page.content()).includes(recoveryCodes[0]!));
    await page.reload();
    await waitForText(page.getByTestId('mfa-summary'), '10 recovery codes left');
    assert.ok(!(await page.content()).includes(recoveryCodes[0]!));
    await page.getByRole('button', { name: 'Turn off the authenticator app' }).waitFor();
    const events = page.getByTestId('security-events');
    await waitForText(events, 'Authenticator app (TOTP) turned on');
    await waitForText(events, 'Passkey “Test laptop” added');
  });

  /** Sensitive calls made quickly after a step-up may pass without a dialog; when one asks, the passkey answers. */
  async function stepUpWithPasskeyIfAsked() {
    const dialog = page.getByRole('dialog', { name: STEP_UP_DIALOG });
    const asked = await dialog.waitFor({ timeout: 1500 }).then(
      () => true,
      () => false,
    );
    if (!asked) return;
    await dialog.getByRole('button', { name: 'Use a passkey' }).click();
    await dialog.waitFor({ state: 'detached' });
    provenAt = Date.now();
  }

  it('withdraws to the active address once; the step-up dialog takes a recovery code', async () => {
    await page.getByRole('link', { name: 'Master wallet' }).click();
    await waitForText(page.getByTestId('master-balance'), '1,000.00 USDC');
    await outliveStepUp(provenAt);
    const form = page.getByRole('form', { name: 'Withdraw from the master wallet' });
    const to = form.getByLabel('To address');
    await waitForText(to, 'Cold storage');
    await to.selectOption({ index: 1 });
    await form.getByLabel('Amount to withdraw').fill('125.5');
    await form.getByLabel('Memo (optional)').fill('Rent for the servers');
    await form.getByRole('button', { name: 'Withdraw' }).click();
    const confirm = page.getByRole('dialog', { name: 'Withdraw from the master wallet?' });
    await confirm.getByRole('button', { name: 'Withdraw 125.50 USDC' }).click();
    const dialog = page.getByRole('dialog', { name: STEP_UP_DIALOG });
    await dialog.waitFor();
    // A factor is active: passkey, or a code (TOTP or recovery); never the password alone.
    await dialog.getByRole('button', { name: 'Use a passkey' }).waitFor();
    assert.equal(await dialog.getByLabel('Your password').count(), 0);
    await dialog.getByLabel('Authentication code').fill(recoveryCodes[0]!);
    await shot(page, 'security-08-step-up-code');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await dialog.waitFor({ state: 'detached' });
    await confirm.waitFor({ state: 'detached' });
    const row = page.getByTestId('withdrawal').first();
    await waitForText(row, '−125.50 USDC');
    await waitForText(row, 'completed');
    await waitForText(row, 'Rent for the servers');
    await waitForText(page.getByTestId('master-balance'), '874.50 USDC');
    await shot(page, 'security-09-withdrawn');
    // Refused once for the step-up, then sent again with the same Idempotency-Key: one withdrawal.
    assert.deepEqual(
      withdrawalPosts.map((p) => p.status),
      [403, 201],
    );
    assert.ok(withdrawalPosts[0]?.key !== undefined);
    assert.equal(withdrawalPosts[1]?.key, withdrawalPosts[0]?.key);
    assert.equal(await page.getByTestId('withdrawal').count(), 1);
    assert.equal(stepUps.at(-1)?.kind, 'code');
  });

  it('ends another session, then logs out everywhere else', async () => {
    assert.equal(await meStatus(scriptTokens[0]!), 200);
    await page.getByRole('link', { name: 'Security' }).click();
    await waitForText(page.getByTestId('mfa-summary'), '9 recovery codes left');
    const sessions = page.getByTestId('session');
    // The signup's browser session ended at logout; the login's and the two scripts' remain.
    await waitForText(page.getByTestId('sessions'), 'e2e-script/2');
    assert.equal(await sessions.count(), 3);
    await shot(page, 'security-10-sessions');
    await sessions.filter({ hasText: 'e2e-script/1' }).getByRole('button', { name: /^End/ }).click();
    await sessions.filter({ hasText: 'e2e-script/1' }).waitFor({ state: 'detached' });
    assert.equal(await meStatus(scriptTokens[0]!), 401);
    assert.equal(await meStatus(scriptTokens[1]!), 200);

    await page.getByRole('button', { name: 'Log out everywhere else' }).click();
    const dialog = page.getByRole('dialog', { name: 'Log out everywhere else?' });
    await dialog.getByRole('button', { name: 'Log out other sessions' }).click();
    await dialog.waitFor({ state: 'detached' });
    await waitForText(page.locator('.status-note', { hasText: 'logged out' }), '1 other session logged out');
    assert.equal(await meStatus(scriptTokens[1]!), 401);
    assert.equal(await sessions.count(), 1);
    await page.getByRole('heading', { name: 'Security', level: 1 }).waitFor();
  });

  it('fits a 390 px phone screen: Security and the master wallet’s withdraw section', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await noHorizontalScroll(page);
    await shot(page, 'security-11-phone');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Master wallet' }).click();
    await page.getByTestId('withdrawal').first().waitFor();
    await noHorizontalScroll(page);
    await shot(page, 'security-12-phone-withdraw');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('ran without page errors, CSP reports or requests to another origin', () => {
    assert.deepEqual(consoleErrors, []);
    assert.deepEqual(cspViolations, []);
    assert.deepEqual(foreignRequests, []);
  });
});

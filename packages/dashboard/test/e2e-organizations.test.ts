// End-to-end: an organization of two people in the dashboard, against the real server (child process, sandbox
// rail) in headless Chromium, one browser context per person. The owner invites an approver (the link is shown
// once and copied), the approver signs up through the link and is offered only what the role allows (Approve,
// but no "Create key", "Move money", policy form or wallet creation), a payment held by require_approvals
// (2 approvers) shows "1 of 2 approvals" after the approver's approval and is sent after the owner's, and the
// audit log names the approver by email.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
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
  waitForText,
} from './support/e2e-helpers.ts';

/** The wallet list is polled every 15 s: a new held payment shows within one poll (or on navigation). */
const POLL_WAIT = 25_000;
const EXTERNAL_ADDRESS = `0x${'cd'.repeat(20)}`;
const PASSWORD = 'correct horse battery staple';

describe('dashboard end to end: an organization of two', { skip: CHROMIUM_SKIP }, () => {
  let server: RunningServer;
  let browser: Browser;
  let ownerContext: BrowserContext;
  let memberContext: BrowserContext;
  let owner: Page;
  let member: Page;
  let base: string;
  let token = '';
  let walletId = '';
  let apiKey = '';
  let inviteLink = '';
  let txId = '';
  const stamp = Date.now();
  const ownerEmail = `e2e-org-owner-${stamp}@example.com`;
  const approverEmail = `e2e-org-approver-${stamp}@example.com`;
  const pageErrors: string[] = [];

  /** The REST API as the owner, for setting the scene (money, a wallet, a key, the policy). */
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
    ownerContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await ownerContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    memberContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    owner = await newPage(ownerContext);
    member = await newPage(memberContext);
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('the owner signs up; a funded wallet whose payments above 5 USDC need two approvals', async () => {
    await owner.goto(`${base}/signup`);
    await owner.getByLabel('Email').fill(ownerEmail);
    await owner.getByLabel('Password').fill(PASSWORD);
    await owner.getByRole('button', { name: 'Create account' }).click();
    await owner.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await waitForText(owner.getByTestId('account-role'), 'Owner');
    token = await owner.evaluate(
      () => (JSON.parse(sessionStorage.getItem('agent-wallet.session') ?? '{}') as { token: string }).token,
    );
    await rest('POST', '/wallet/sandbox/deposit', { amount: '1000' });
    walletId = String((await rest('POST', '/agent-wallets', { label: 'Team agent' })).id);
    await rest(
      'POST',
      `/agent-wallets/${walletId}/fund`,
      { amount: '100' },
      { 'idempotency-key': 'org-fund' },
    );
    apiKey = String((await rest('POST', `/agent-wallets/${walletId}/keys`, { label: 'team bot' })).key);
    await rest('POST', `/agent-wallets/${walletId}/policies`, {
      type: 'require_approvals',
      params: { amount: '5', approvers: 2 },
    });
  });

  it('the owner invites an approver: the link is shown once and copied', async () => {
    await owner.getByTestId('nav-members').click();
    await owner.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    await waitForText(owner.getByTestId('member-list'), ownerEmail);
    const form = owner.getByRole('form', { name: 'Invite a member' });
    await form.getByLabel('Email').fill(approverEmail);
    await form.getByLabel('Role').selectOption('approver');
    await form.getByRole('button', { name: 'Invite' }).click();
    const dialog = owner.getByRole('dialog', { name: 'Send this invitation link' });
    await dialog.waitFor();
    await waitForText(dialog.getByTestId('invitation-warning'), 'shown only once');
    inviteLink = await dialog.getByTestId('invitation-link').inputValue();
    assert.ok(inviteLink.startsWith(`${base}/?invite=`), inviteLink);
    assert.ok(inviteLink.includes(`email=${encodeURIComponent(approverEmail)}`), inviteLink);
    await dialog.getByRole('button', { name: 'Copy invitation link' }).click();
    await waitForText(dialog.locator('.copy-status'), 'Copied');
    assert.equal(await owner.evaluate(() => navigator.clipboard.readText()), inviteLink);
    await shot(owner, 'org-01-invitation');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await waitForText(owner.getByTestId('invitation-list'), approverEmail);
  });

  it('the approver signs up through the link, with the email filled in', async () => {
    await member.goto(inviteLink);
    await member.getByRole('heading', { name: 'Join your organization' }).waitFor();
    assert.equal(await member.getByLabel('Email').inputValue(), approverEmail);
    await member.getByLabel('Password').fill(PASSWORD);
    await member.getByRole('button', { name: 'Join' }).click();
    await member.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await member.getByTestId('nav-master').click();
    await member.getByTestId('master-balance').waitFor();
    await waitForText(member.getByTestId('account-role'), 'Approver');
    // The invitation is spent: the address bar no longer carries it.
    assert.equal(new URL(member.url()).search, '');
    await waitForText(member.getByTestId('master-balance'), '900.00 USDC');
  });

  it('the approver is offered only what the role allows', async () => {
    // Master wallet: no sandbox deposit, no address book changes, no withdraw form.
    await member.getByTestId('withdraw-owner-only').waitFor();
    assert.equal(await member.getByRole('button', { name: 'Withdraw' }).count(), 0);
    assert.equal(await member.getByRole('button', { name: 'Add address' }).count(), 0);
    assert.equal(await member.getByRole('form', { name: /deposit/i }).count(), 0);

    await member.getByRole('link', { name: 'Agent wallets', exact: true }).click();
    await member.getByTestId('wallet-list').waitFor();
    assert.equal(await member.getByRole('button', { name: 'Create wallet' }).count(), 0);

    await member.goto(`${base}/agents/${walletId}?tab=keys`);
    await member.getByRole('heading', { name: 'Team agent', level: 1 }).waitFor();
    await waitForText(member.getByTestId('key-list'), 'team bot');
    assert.equal(await member.getByRole('button', { name: 'Create key' }).count(), 0);
    assert.equal(await member.getByRole('button', { name: 'Revoke' }).count(), 0);
    assert.equal(await member.getByRole('button', { name: 'Move money' }).count(), 0);

    await member.getByTestId('tab-policies').click();
    await member.getByTestId('policy-list').waitFor();
    assert.equal(await member.getByRole('form', { name: 'Add a policy' }).count(), 0);
    assert.equal(await member.getByRole('button', { name: 'Delete' }).count(), 0);

    await member.getByTestId('tab-settings').click();
    await member.getByTestId('settings-read-only').waitFor();
    assert.equal(await member.getByRole('button', { name: /freeze/i }).count(), 0);

    await member.getByTestId('nav-members').click();
    await waitForText(member.getByTestId('member-list'), ownerEmail);
    assert.equal(await member.getByRole('form', { name: 'Invite a member' }).count(), 0);
    assert.equal(await member.getByTestId('member-role').count(), 0);
    assert.equal(await member.getByTestId('require-mfa').count(), 0);
    await shot(member, 'org-02-approver-members');
  });

  it('two-person approval: "1 of 2 approvals" after the approver, sent after the owner', async () => {
    const paid = await callTool(base, apiKey, 'send_payment', { toAddress: EXTERNAL_ADDRESS, amount: '10' });
    assert.equal(paid.body.data?.status, 'pending', JSON.stringify(paid.body));
    txId = String(paid.body.data?.txId);

    await member.getByTestId('nav-approvals').click();
    await member.getByRole('heading', { name: 'Approvals', level: 1 }).waitFor();
    const item = member.getByTestId('approval-item').filter({ hasText: '10.00 USDC' });
    await item.waitFor({ timeout: POLL_WAIT });
    await waitForText(item.getByTestId('approval-count'), '0 of 2 approvals');
    await item.getByRole('button', { name: 'Approve' }).click();
    await member.getByRole('dialog', { name: 'Approve this payment?' }).waitFor();
    await member.getByRole('dialog').getByRole('button', { name: 'Approve payment' }).click();
    await member.locator('.status-note', { hasText: '1 more approval needed' }).waitFor();
    // Still waiting, with the new count and who approved; this member cannot approve twice.
    await waitForText(item.getByTestId('approval-count'), '1 of 2 approvals');
    await waitForText(item.getByTestId('approvers'), 'Approved by you');
    assert.equal(await item.getByRole('button', { name: 'Approve' }).count(), 0);
    await item.getByTestId('approved-by-you').waitFor();
    await shot(member, 'org-03-one-of-two');

    await owner.getByTestId('nav-approvals').click();
    await owner.getByRole('heading', { name: 'Approvals', level: 1 }).waitFor();
    const ownerItem = owner.getByTestId('approval-item').filter({ hasText: '10.00 USDC' });
    await ownerItem.waitFor({ timeout: POLL_WAIT });
    await waitForText(ownerItem.getByTestId('approval-count'), '1 of 2 approvals');
    await waitForText(ownerItem.getByTestId('approvers'), `Approved by ${approverEmail}`);
    await ownerItem.getByRole('button', { name: 'Approve' }).click();
    await owner.getByRole('dialog').getByRole('button', { name: 'Approve payment' }).click();
    await owner.locator('.status-note', { hasText: 'approved: now completed' }).waitFor();
    await ownerItem.waitFor({ state: 'detached' });
    const tx = await rest('GET', `/agent-wallets/${walletId}/transactions/${txId}`);
    assert.equal(tx.status, 'completed');
    assert.equal((tx.approvals as unknown[]).length, 2);
  });

  it('the audit log names the approver by email, newest first, and filters by who', async () => {
    await owner.getByTestId('nav-audit').click();
    await owner.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    const list = owner.getByTestId('audit-list');
    await waitForText(list, approverEmail);
    const approverRow = owner
      .getByTestId('audit-item')
      .filter({ has: owner.getByTestId('audit-actor-label').getByText(approverEmail, { exact: true }) });
    await waitForText(approverRow.first().getByTestId('audit-action'), 'Approve transaction');
    const shown = (await list.textContent()) ?? '';
    for (const { id } of (await rest('GET', '/members')).items as { id: string }[]) {
      assert.ok(!shown.includes(id), `a member shown by id: ${id}`);
    }

    await owner.getByTestId('audit-actor').selectOption({ label: approverEmail });
    await owner.waitForFunction(
      (email) =>
        [...document.querySelectorAll('[data-testid="audit-actor-label"]')].every(
          (cell) => cell.textContent === email,
        ) && document.querySelectorAll('[data-testid="audit-actor-label"]').length > 0,
      approverEmail,
    );
    await shot(owner, 'org-04-audit');
    assert.deepEqual(pageErrors, []);
  });
});

// End to end, the owners of a bounded treasury sign in the dashboard: anvil with the MetaMask Delegation
// Framework's npm bytecode, two owners and a threshold of 2, two service processes on one PostgreSQL schema each
// serving the built dashboard, driven in Chromium. Each browser context has an injected EIP-1193 wallet
// (window.ethereum) whose eth_signTypedData_v4 is answered by a viem account held by this test (through
// exposeFunction: the private key never enters the page). A withdrawal above the allowance waits (202); a
// non-owner's signature is refused and the dashboard says so in words; then owner 1 on the first instance and
// owner 2 on the second hand in at once: submitted once, confirmed, and the ledger and the chain agree. Then an
// owner clicks "Revoke the service's allowance": the revocation is listed, both owners sign it in the dashboard, it
// is confirmed, the treasury's allowance left is 0 (the card says so), and a second click is told in words that
// nothing is left to revoke. Last, an owner asks in the Treasury card's form for a third owner and a threshold
// of 1; the two owners sign it in the dashboard, and once it is confirmed the account has the new owners.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EntryPoint } from '@metamask/delegation-abis';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { type Address, getAddress } from 'viem';
import type { HDAccount } from 'viem/accounts';
import { anvilAvailable, mine } from '../../server/test/support/anvil.ts';
import { deployFrameworkFor, owners } from '../../server/test/support/bounded.ts';
import { type EvmWorld, evmEnv, startEvmWorld } from '../../server/test/support/evm.ts';
import { runCli, type ServiceProcess, startServiceProcess } from '../../server/test/support/processes.ts';
import { POSTGRES_URL, probeService, uniqueName } from '../../server/test/support/services.ts';
import {
  CHROMIUM_SKIP,
  DIST_DIR,
  ensureBuilt,
  GENEROUS_LIMITS,
  launchBrowser,
  requireChromium,
  SCREENSHOT_DIR,
  STEP_TIMEOUT,
  shot,
  waitForText,
} from './support/e2e-helpers.ts';

const probe = await anvilAvailable();
const pg = await probeService('PostgreSQL', POSTGRES_URL);
const skipReason = !probe.available ? probe.skip : !pg.available ? pg.skip : CHROMIUM_SKIP;

const PASSWORD = 'correct horse battery staple';
const USDC = 1_000_000n;
const RECIPIENT = '0x00000000000000000000000000000000000c01d5' as Address;
/** The chain's owners are anvil's accounts 1 and 2; account 3 holds no part of the treasury. */
const [OWNER_1, OWNER_2, STRANGER] = owners as [HDAccount, HDAccount, HDAccount];
const CHAIN_WAIT = 60_000;

interface Person {
  email: string;
  token: string;
}

/** A REST call to one instance with a session. */
/** Each owner's row of one request, in turn: signed with their wallet, and the signature counted. */
async function signInTurn(rows: readonly Locator[]) {
  for (const row of rows) {
    await row.getByRole('button', { name: /^Sign with your wallet/ }).click();
    await waitForText(row, /Signed with 0x/);
    assert.equal(await row.getByTestId('owners-request-refused').count(), 0, 'the signature counts');
  }
}

/** Blocks mined until every page's row of the request says completed (within CHAIN_WAIT in all). */
async function mineUntilCompleted(anvil: Parameters<typeof mine>[0], rows: readonly Locator[]) {
  const deadline = Date.now() + CHAIN_WAIT;
  for (const row of rows) {
    while ((await row.getAttribute('data-status')) !== 'completed') {
      assert.ok(Date.now() < deadline, `still ${await row.getAttribute('data-status')}`);
      await mine(anvil, 1);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

async function rest(base: string, person: Person, method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${person.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: a test reads the envelope as it comes
  return { status: response.status, body: (await response.json()) as any };
}

async function signup(base: string, email: string, invitationToken?: string): Promise<Person> {
  const response = await fetch(`${base}/api/v1/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD, ...(invitationToken ? { invitationToken } : {}) }),
  });
  const body = (await response.json()) as { data: { token: string } };
  assert.equal(response.status, 201, JSON.stringify(body));
  return { email, token: body.data.token };
}

/** What the test wallet of one browser context holds: the account it signs with and the chain it is on. */
interface TestWallet {
  account: HDAccount;
  chainId: number;
}

/** The test wallet's answer to one EIP-1193 request, as a wallet extension would give it. */
async function answer(wallet: TestWallet, method: string, params: unknown[]) {
  switch (method) {
    case 'eth_requestAccounts':
    case 'eth_accounts':
      return { result: [wallet.account.address] };
    case 'eth_chainId':
      return { result: `0x${wallet.chainId.toString(16)}` };
    case 'wallet_switchEthereumChain':
      wallet.chainId = Number.parseInt((params[0] as { chainId: string }).chainId, 16);
      return { result: null };
    case 'eth_signTypedData_v4': {
      const [address, json] = params as [string, string];
      if (address.toLowerCase() !== wallet.account.address.toLowerCase())
        return { error: { code: 4100, message: 'that account is not in this wallet' } };
      const typedData = JSON.parse(json);
      if (typedData.domain.chainId !== wallet.chainId)
        return {
          error: { code: -32603, message: 'the typed data is for another chain than the active one' },
        };
      return { result: await wallet.account.signTypedData(typedData) };
    }
    default:
      return { error: { code: 4200, message: `no ${method} here` } };
  }
}

/**
 * A browser context whose window.ethereum is a test wallet: its requests are answered in this process (answer),
 * where the private key stays.
 */
async function contextWithWallet(browser: Browser, wallet: TestWallet): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.exposeFunction('__testWallet', (method: string, paramsJson: string) =>
    answer(wallet, method, JSON.parse(paramsJson) as unknown[]),
  );
  await context.addInitScript(() => {
    type Answer = { result?: unknown; error?: { code: number; message: string } };
    const call = (window as unknown as { __testWallet: (m: string, p: string) => Promise<Answer> })
      .__testWallet;
    (window as unknown as { ethereum: unknown }).ethereum = {
      request: async ({ method, params }: { method: string; params?: unknown[] }) => {
        const answer = await call(method, JSON.stringify(params ?? []));
        if (answer.error === undefined) return answer.result;
        throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
      },
    };
  });
  return context;
}

async function logIn(page: Page, base: string, person: Person) {
  await page.goto(`${base}/login`);
  await page.getByLabel('Email').fill(person.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
}

/** Logs out and in again: a login is a fresh proof of presence. */
async function logInAgain(page: Page, base: string, person: Person) {
  await page.getByRole('button', { name: 'Log out', exact: true }).click();
  await page.getByRole('heading', { name: 'Log in' }).waitFor();
  await logIn(page, base, person);
}

describe('the owners of a bounded treasury sign in the dashboard', { skip: skipReason }, () => {
  let world: EvmWorld;
  let env: Record<string, string>;
  let framework: Awaited<ReturnType<typeof deployFrameworkFor>>;
  const instances: ServiceProcess[] = [];
  let browser: Browser | undefined;
  let account: Address;
  let owner: Person;
  let coOwner: Person;
  let withdrawalId = '';
  // The first wallet starts on another chain (mainnet): the dashboard asks it to switch before it signs.
  const wallet1: TestWallet = { account: STRANGER, chainId: 1 };
  const wallet2: TestWallet = { account: OWNER_2, chainId: 0 };
  let page1: Page;
  let page2: Page;
  const pageErrors: string[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'dashboard-e2e-owners-'));
  const [a, b] = [() => instances[0]!.url, () => instances[1]!.url];

  before(async () => {
    requireChromium();
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    ensureBuilt();
    world = await startEvmWorld();
    wallet2.chainId = world.anvil.chainId;
    framework = await deployFrameworkFor(world);
    env = {
      ...evmEnv(world, {
        ...framework.env,
        CONFIRMATIONS: '1',
        CHAIN_POLL_INTERVAL_MS: '200',
        SENDER_LEASE_MS: '1000',
        TREASURY_MODE: 'bounded',
        TREASURY_ALLOWANCE: '10',
        TREASURY_FLOAT_MAX: '5',
        TREASURY_OWNERS: `${OWNER_1.address},${OWNER_2.address}`,
        TREASURY_THRESHOLD: '2',
      }),
      DATABASE_URL: POSTGRES_URL,
      DATABASE_SCHEMA: uniqueName('dashboard_owners'),
      REDIS_URL: '',
      DASHBOARD_DIR: DIST_DIR,
      JWT_SECRET: 'dashboard-e2e-owners-secret-of-at-least-32-characters',
      RATE_LIMITS: JSON.stringify(GENEROUS_LIMITS),
      WITHDRAWAL_ADDRESS_DELAY_SECONDS: '0',
    };
    // The first start migrates the schema; then the owners grant the service its allowance, as an operator does.
    await (await startServiceProcess(env)).stop();
    await grantAllowance();
    instances.push(await startServiceProcess(env), await startServiceProcess(env));
    browser = await launchBrowser();
  });

  async function grantAllowance() {
    const file = join(dataDir, 'delegation.json');
    const prepared = await runCli(['treasury-prepare', '--out', file], env);
    assert.equal(prepared.code, 0, prepared.stderr);
    const form = JSON.parse(readFileSync(file, 'utf8'));
    account = getAddress(form.delegation.delegator);
    form.typedData.message.salt = BigInt(form.typedData.message.salt);
    const signatures = await Promise.all(
      [OWNER_1, OWNER_2].map(async (o) => ({
        signer: o.address,
        signature: await o.signTypedData(form.typedData),
      })),
    );
    writeFileSync(file, JSON.stringify({ ...form, typedData: undefined, signatures }));
    const granted = await runCli(['treasury-grant', '--in', file], env);
    assert.equal(granted.code, 0, granted.stderr);
  }

  after(async () => {
    await browser?.close();
    const logs = instances.map((s, i) => `--- instance ${i + 1}\n${s.output()}`).join('\n');
    writeFileSync(join(SCREENSHOT_DIR, '..', 'dashboard-e2e-treasury-owners-server.log'), logs);
    for (const s of instances) await s.stop();
    await world?.anvil.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a withdrawal above the allowance waits for the owners: 202 awaiting_signatures', async () => {
    owner = await signup(a(), `owners-e2e-${Date.now()}@example.com`);
    const master = (await rest(a(), owner, 'GET', '/wallet')).body.data;
    await world.usdc.mint(master.address, 100n * USDC);
    const deadline = Date.now() + CHAIN_WAIT;
    while ((await rest(a(), owner, 'GET', '/wallet')).body.data.balance !== '100.000000') {
      assert.ok(Date.now() < deadline, 'the deposit was not credited in time');
      await mine(world.anvil, 1);
      await new Promise((r) => setTimeout(r, 300));
    }
    const invited = await rest(a(), owner, 'POST', '/members/invitations', {
      email: `co-owner-${Date.now()}@example.com`,
      role: 'owner',
    });
    assert.equal(invited.status, 201, JSON.stringify(invited.body));
    coOwner = await signup(b(), invited.body.data.email, invited.body.data.token);
    const added = await rest(a(), owner, 'POST', '/wallet/withdrawal-addresses', {
      address: RECIPIENT,
      label: 'cold storage',
    });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const asked = await rest(a(), owner, 'POST', '/wallet/withdrawals', {
      toAddress: RECIPIENT,
      amount: '50',
    });
    assert.equal(asked.status, 202, JSON.stringify(asked.body));
    assert.equal(asked.body.data.status, 'awaiting_signatures');
    assert.equal(asked.body.data.signaturesNeeded, 2);
    withdrawalId = asked.body.data.id;
  });

  it("shows the request on both instances' dashboards; a non-owner's signature is refused in words", async () => {
    const context1 = await contextWithWallet(browser!, wallet1);
    const context2 = await contextWithWallet(browser!, wallet2);
    page1 = await context1.newPage();
    page2 = await context2.newPage();
    for (const page of [page1, page2]) {
      page.setDefaultTimeout(STEP_TIMEOUT);
      page.on('pageerror', (error) => pageErrors.push(`pageerror: ${error.message}`));
    }
    await logIn(page1, a(), owner);
    await logIn(page2, b(), coOwner);
    for (const page of [page1, page2]) {
      const row = page.locator(`[data-testid="owners-request"][data-id="${withdrawalId}"]`);
      await waitForText(row, 'Withdrawal of 50.00 USDC');
      await waitForText(row.getByTestId('owners-request-progress'), 'Waiting for 2 more owner signatures');
    }
    const row1 = page1.locator(`[data-testid="owners-request"][data-id="${withdrawalId}"]`);
    await row1.getByRole('button', { name: /^Sign with your wallet/ }).click();
    await waitForText(row1.getByTestId('owners-request-refused'), 'is not one of the treasury’s owners');
    await waitForText(row1.getByTestId('owners-request-refused'), STRANGER.address.slice(0, 8));
    await waitForText(row1.getByTestId('owners-request-progress'), 'Waiting for 2 more owner signatures');
    await shot(page1, 'treasury-owners-01-refused');
  });

  it('a viewer of the organization reads the same request without the buttons', async () => {
    const invited = await rest(a(), owner, 'POST', '/members/invitations', {
      email: `viewer-${Date.now()}@example.com`,
      role: 'viewer',
    });
    assert.equal(invited.status, 201, JSON.stringify(invited.body));
    const viewer = await signup(b(), invited.body.data.email, invited.body.data.token);
    const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(STEP_TIMEOUT);
    page.on('pageerror', (error) => pageErrors.push(`pageerror: ${error.message}`));
    await logIn(page, b(), viewer);
    const row = page.locator(`[data-testid="owners-request"][data-id="${withdrawalId}"]`);
    await waitForText(row.getByTestId('owners-request-progress'), 'Waiting for 2 more owner signatures');
    assert.equal(await row.getByRole('button').count(), 0, 'no Sign button for a viewer');
    assert.equal(await page.getByTestId('revoke-allowance').count(), 0, 'no revoke button for a viewer');
    await context.close();
  });

  it('owner 1 on one instance and owner 2 on the other sign at once: submitted once, confirmed', async () => {
    wallet1.account = OWNER_1;
    const rows = [page1, page2].map((p) =>
      p.locator(`[data-testid="owners-request"][data-id="${withdrawalId}"]`),
    );
    await Promise.all(rows.map((row) => row.getByRole('button', { name: /^Sign with your wallet/ }).click()));
    for (const row of rows) {
      await row.getByText(/^Signed with /).waitFor();
      assert.equal(await row.getByTestId('owners-request-refused').count(), 0, 'neither hand-in is refused');
    }
    await mineUntilCompleted(world.anvil, rows);
    for (const row of rows) {
      await waitForText(row.getByTestId('owners-request-progress'), 'Done: confirmed on chain');
      await waitForText(row.getByTestId('owners-request-signed-by'), getAddress(OWNER_1.address).slice(0, 8));
    }
    await shot(page2, 'treasury-owners-02-completed');
  });

  it('the ledger and the chain agree: paid once by the account, verify-ledger --chain passes', async () => {
    assert.equal(await world.usdc.balanceOf(RECIPIENT), 50n * USDC, 'paid once');
    const operations = await world.usdc.publicClient.getContractEvents({
      address: getAddress(framework.entryPoint),
      abi: EntryPoint,
      eventName: 'UserOperationEvent',
      args: { sender: account },
      fromBlock: 0n,
    });
    assert.equal(operations.length, 1, 'one operation of the owners’ account');
    const withdrawal = (await rest(b(), coOwner, 'GET', `/wallet/withdrawals/${withdrawalId}`)).body.data;
    assert.equal(withdrawal.status, 'completed');
    assert.match(withdrawal.txHash, /^0x[0-9a-f]{64}$/);
    assert.equal((await rest(a(), owner, 'GET', '/wallet')).body.data.balance, '50.000000');
    const verified = await runCli(['verify-ledger', '--chain'], env);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    assert.deepEqual(pageErrors, []);
  });

  it('an owner revokes the service’s allowance; both owners sign it in the dashboard; nothing is left to revoke', async () => {
    // Fresh logins: revoking and signing need a proof of presence younger than the step-up age, and a login is one.
    await logInAgain(page1, a(), owner);
    await page1.getByTestId('revoke-allowance').click();
    const dialog = page1.getByRole('dialog', { name: 'Revoke the service’s allowance?' });
    await dialog.getByRole('button', { name: 'Ask the owners to revoke it' }).click();
    await dialog.waitFor({ state: 'detached' });
    await waitForText(
      page1.locator('.owners-revoke'),
      'Revocation asked: it is listed above and takes effect once 2 owners have signed it',
    );
    // The other owner logs in again on the other instance once it was asked for.
    await logInAgain(page2, b(), coOwner);
    const revocations = [page1, page2].map((p) =>
      p.locator('[data-testid="owners-request"][data-status="awaiting_signatures"]', {
        hasText: 'Revoke the service’s allowance',
      }),
    );
    for (const row of revocations) {
      await row.waitFor();
      await waitForText(row.getByTestId('owners-request-progress'), 'Waiting for 2 more owner signatures');
    }
    const revocationId = await revocations[0]!.getAttribute('data-id');
    assert.ok(revocationId !== null);
    const rows = [page1, page2].map((p) =>
      p.locator(`[data-testid="owners-request"][data-id="${revocationId}"]`),
    );
    await signInTurn(rows);
    await mineUntilCompleted(world.anvil, rows);
    const treasury = (await rest(a(), owner, 'GET', '/wallet/treasury')).body.data;
    assert.equal(treasury.allowance.remaining, '0.000000');
    await waitForText(page1.getByTestId('treasury-allowance'), 'Allowance left this period: 0.00 USDC');
    await shot(page1, 'treasury-owners-03-revoked');

    await page1.getByTestId('revoke-allowance').click();
    await dialog.getByRole('button', { name: 'Ask the owners to revoke it' }).click();
    await waitForText(dialog.getByRole('alert'), 'Nothing is left to revoke');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.deepEqual(pageErrors, []);
  });

  it('an owner changes the owners in the form; the current owners sign it; the account has the new ones', async () => {
    // A fresh login is the proof of presence the change asks for (step-up always), as for the revocation.
    await logInAgain(page1, a(), owner);
    await page1.getByTestId('change-owners').click();
    const form = page1.getByTestId('owners-change-form');
    // Prefilled with the account's owners (in the account's order) and its threshold.
    const prefilled = [1, 2].map((n) => form.getByRole('textbox', { name: `Owner ${n}`, exact: true }));
    const current = await Promise.all(prefilled.map((field) => field.inputValue()));
    assert.deepEqual(current.sort(), [OWNER_1, OWNER_2].map((o) => getAddress(o.address)).sort());
    assert.equal(
      await form.getByRole('textbox', { name: 'Owners who must sign a change' }).inputValue(),
      '2',
    );
    await form.getByRole('button', { name: 'Add an owner' }).click();
    await form.getByRole('textbox', { name: 'Owner 3', exact: true }).fill(STRANGER.address);
    await form.getByRole('textbox', { name: 'Owners who must sign a change' }).fill('1');
    await shot(page1, 'treasury-owners-04-change-form');
    await form.getByRole('button', { name: 'Ask the owners to sign this change' }).click();
    await waitForText(
      page1.locator('.owners-change'),
      'the current owners must sign it (2 signatures needed)',
    );
    await logInAgain(page2, b(), coOwner);
    const changes = [page1, page2].map((p) =>
      p.locator('[data-testid="owners-request"][data-status="awaiting_signatures"]', {
        hasText: 'Change the owners to',
      }),
    );
    await changes[0]!.waitFor();
    const changeId = await changes[0]!.getAttribute('data-id');
    assert.ok(changeId !== null);
    const rows = [page1, page2].map((p) =>
      p.locator(`[data-testid="owners-request"][data-id="${changeId}"]`),
    );
    await signInTurn(rows);
    await mineUntilCompleted(world.anvil, rows);
    const treasury = (await rest(a(), owner, 'GET', '/wallet/treasury')).body.data;
    // The account's own order (getSigners), not the form's: compared as sets.
    assert.deepEqual(
      [...treasury.owners].sort(),
      [OWNER_1, OWNER_2, STRANGER].map((o) => getAddress(o.address)).sort(),
    );
    assert.equal(treasury.threshold, 1);
    await waitForText(page1.getByTestId('treasury-mode'), '1 of 3 owners sign a change');
    // The form's note said what the change waited for: the list's row says the rest now.
    assert.equal(await page1.locator('.owners-change').getByText('Change asked').count(), 0);
    await shot(page1, 'treasury-owners-05-owners-changed');
    assert.deepEqual(pageErrors, []);
  });
});

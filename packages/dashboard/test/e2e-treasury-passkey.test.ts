// End to end: a treasury an owner's passkey guards (bounded mode, TREASURY_ACCOUNT_KIND=hybrid), signed by a real
// browser. The server runs as a child process on a private anvil with the framework's npm bytecode; headless
// Chromium holds the passkey in its virtual WebAuthn authenticator (CDP), the same credential the owner enrolled
// through the routes. Set up with the CLI (treasury-create-hybrid from the enrolled passkey, treasury-prepare, the
// browser's assertion over the delegation's digest, treasury-grant); then a withdrawal above the allowance waits
// (202), the owner logs in to the dashboard with the passkey and clicks the Treasury card's "Sign with your
// passkey" (navigator.credentials.get answering the service's options) — Chromium's own clientDataJSON and
// authenticatorData, which the account's P-256 verifier on chain accepts: the withdrawal is paid, and the chain,
// the ledger and verify-ledger --chain agree. STEP_UP_MAX_AGE_SECONDS is its minimum (10) and the click waits past
// it: the hand-in is refused for a step-up, the app's dialog takes the passkey, and the hand-in goes again.
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { Address } from 'viem';
import { hybridAccount } from '../../server/src/chain/bounded/delegation.ts';
import { challengeOf } from '../../server/src/chain/bounded/passkey-signature.ts';
import { serviceKeys } from '../../server/src/chain/keys.ts';
import { anvilAvailable, mine } from '../../server/test/support/anvil.ts';
import { deployFrameworkFor } from '../../server/test/support/bounded.ts';
import { type EvmWorld, evmEnv, startEvmWorld } from '../../server/test/support/evm.ts';
import { runCli, type ServiceProcess, startServiceProcess } from '../../server/test/support/processes.ts';
import { softPasskey } from '../../server/test/support/soft-passkey.ts';
import {
  CHROMIUM_SKIP,
  DIST_DIR,
  ensureBuilt,
  freePort,
  GENEROUS_LIMITS,
  launchBrowser,
  requireChromium,
  SCREENSHOT_DIR,
  STEP_TIMEOUT,
  shot,
  waitForText,
} from './support/e2e-helpers.ts';

const probe = await anvilAvailable();
const USDC = 1_000_000n;
const WAIT_MS = 60_000;
const PASSWORD = 'correct horse battery staple';
/** The server's STEP_UP_MAX_AGE_SECONDS here (its minimum): the card's click waits past it. */
const STEP_UP_AGE_SECONDS = 10;

interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: Array<{ id: string }>;
  userVerification?: string;
}

/** navigator.credentials.get in the page, answered as the browser's AuthenticationResponseJSON. */
function browserAssertion(page: Page, options: RequestOptions): Promise<object> {
  return page.evaluate(async (o) => {
    const fromB64url = (s: string) =>
      Uint8Array.from(
        atob(s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4)),
        (c) => c.charCodeAt(0),
      );
    const toB64url = (b: ArrayBuffer) =>
      btoa(String.fromCharCode(...new Uint8Array(b)))
        .replace(/\+/g, '-')
        .replace(/\//g, '_')
        .replace(/=+$/, '');
    const credential = (await navigator.credentials.get({
      publicKey: {
        challenge: fromB64url(o.challenge),
        rpId: o.rpId ?? location.hostname,
        allowCredentials: (o.allowCredentials ?? []).map((c) => ({
          type: 'public-key' as const,
          id: fromB64url(c.id),
        })),
        userVerification: (o.userVerification ?? 'preferred') as UserVerificationRequirement,
        timeout: 30_000,
      },
    })) as PublicKeyCredential;
    const response = credential.response as AuthenticatorAssertionResponse;
    return {
      id: credential.id,
      rawId: toB64url(credential.rawId),
      type: credential.type,
      clientExtensionResults: credential.getClientExtensionResults(),
      response: {
        clientDataJSON: toB64url(response.clientDataJSON),
        authenticatorData: toB64url(response.authenticatorData),
        signature: toB64url(response.signature),
      },
    };
  }, options);
}

describe('a passkey-owned treasury signed in Chromium', {
  skip: !probe.available ? probe.skip : CHROMIUM_SKIP,
}, () => {
  let world: EvmWorld;
  let server: ServiceProcess;
  let browser: Browser;
  let page: Page;
  let dataDir: string;
  let env: Record<string, string>;
  let base: string;
  let token: string;
  let account: Address;
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const credentialId = randomBytes(16);

  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? null : JSON.parse(text), raw: text };
  };
  /** Mines while waiting: the service's rounds run on their own timers in the child process. */
  const until = async (what: string, check: () => Promise<boolean>) => {
    const deadline = Date.now() + WAIT_MS;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${WAIT_MS} ms\n${server.output()}`);
      await mine(world.anvil, 1);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  /** A fresh proof of presence for the API's calls, answered by the browser's passkey (the person's factor). */
  const stepUp = async () => {
    const options = await api('POST', '/auth/step-up/passkey-options');
    assert.equal(options.status, 200, options.raw);
    const passkey = await browserAssertion(page, options.body.data);
    const proven = await api('POST', '/auth/step-up', { passkey });
    assert.equal(proven.status, 200, proven.raw);
  };

  before(async () => {
    requireChromium();
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    ensureBuilt();
    world = await startEvmWorld();
    const framework = await deployFrameworkFor(world);
    // The account's address follows from its key: configured now, created by the CLI once the passkey is enrolled.
    const jwk = privateKey.export({ format: 'jwk' });
    const coordinate = (c: string | undefined) => BigInt(`0x${Buffer.from(c!, 'base64url').toString('hex')}`);
    account = hybridAccount(
      framework.env.DELEGATION_FACTORY_ADDRESS as Address,
      framework.env.HYBRID_DELEGATOR_ADDRESS as Address,
      undefined,
      [{ keyId: credentialId.toString('base64url'), x: coordinate(jwk.x), y: coordinate(jwk.y) }],
      serviceKeys(world.mnemonic).treasury.address.toLowerCase() as Address,
    ).address;
    dataDir = mkdtempSync(join(tmpdir(), 'treasury-passkey-e2e-'));
    const port = await freePort();
    env = evmEnv(world, {
      ...framework.env,
      DATA_DIR: dataDir,
      CONFIRMATIONS: '1',
      CHAIN_POLL_INTERVAL_MS: '100',
      RATE_LIMITS: JSON.stringify(GENEROUS_LIMITS),
      WITHDRAWAL_ADDRESS_DELAY_SECONDS: '0',
      DATABASE_URL: '',
      REDIS_URL: '',
      DASHBOARD_DIR: DIST_DIR,
      STEP_UP_MAX_AGE_SECONDS: String(STEP_UP_AGE_SECONDS),
      TREASURY_MODE: 'bounded',
      TREASURY_ACCOUNT_KIND: 'hybrid',
      TREASURY_ACCOUNT: account,
      TREASURY_OWNERS: '',
      TREASURY_ALLOWANCE: '100',
      TREASURY_FLOAT_MAX: '40',
    });
    server = await startServiceProcess(env, undefined, port);
    // The passkeys' relying party is localhost (no PUBLIC_URL): browse there, not at 127.0.0.1.
    base = `http://localhost:${port}`;
    browser = await launchBrowser();
    // A page of the service's origin (the relying party's): its health answer, whose CSP (default-src 'none', for
    // JSON) would forbid the script and its fetches — the dashboard's own pages allow their origin.
    page = await browser.newPage({ bypassCSP: true });
    await page.goto(`${base}/api/v1/health`);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    // The credential the owner enrols below, held by Chromium's authenticator (its counter ahead of enrolment's).
    await cdp.send('WebAuthn.addCredential', {
      authenticatorId,
      credential: {
        credentialId: credentialId.toString('base64'),
        isResidentCredential: false,
        rpId: 'localhost',
        privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
        signCount: 10,
      },
    });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await world?.anvil.stop();
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  it('the owner’s passkey creates the account, grants the delegation and signs a withdrawal on the Treasury card', async () => {
    const email = `passkey-owner.${process.pid}@example.test`;
    const signup = await api('POST', '/auth/signup', { email, password: PASSWORD });
    assert.equal(signup.status, 201, signup.raw);
    token = signup.body.data.token;
    const enrolling = softPasskey(base, 'localhost', { privateKey, credentialId });
    const options = await api('POST', '/auth/passkeys/registration-options');
    const enrolled = await api('POST', '/auth/passkeys', enrolling.register(options.body.data, 'browser'));
    assert.equal(enrolled.status, 201, enrolled.raw);

    const created = await runCli(['treasury-create-hybrid', '--email', email], env);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, new RegExp(`TREASURY_ACCOUNT=${account}`));
    const file = join(dataDir, 'delegation.json');
    const prepared = await runCli(['treasury-prepare', '--out', file], env);
    assert.equal(prepared.code, 0, prepared.stderr);
    const form = JSON.parse(readFileSync(file, 'utf8'));
    const grantAssertion = await browserAssertion(page, {
      challenge: challengeOf(form.digest),
      allowCredentials: [{ id: credentialId.toString('base64url') }],
    });
    writeFileSync(file, JSON.stringify({ ...form, signatures: [{ passkey: grantAssertion }] }));
    const granted = await runCli(['treasury-grant', '--in', file], env);
    assert.equal(granted.code, 0, granted.stderr);

    await world.usdc.mint(account, 1_000n * USDC);
    const master = (await api('GET', '/wallet')).body.data;
    await world.usdc.mint(master.address, 300n * USDC);
    await until(
      'the deposit is credited',
      async () => (await api('GET', '/wallet')).body.data.balance === '300.000000',
    );
    const recipient = `0x${'eb'.repeat(20)}` as Address;
    await stepUp();
    const added = await api('POST', '/wallet/withdrawal-addresses', { address: recipient, label: 'cold' });
    assert.equal(added.status, 201, added.raw);
    const asked = await api('POST', '/wallet/withdrawals', { toAddress: recipient, amount: '250' });
    assert.equal(asked.status, 202, asked.raw);
    const { id } = asked.body.data;

    // The owner logs in to the dashboard (the passkey is their second factor) and signs on the Treasury card.
    await page.goto(`${base}/login`);
    page.setDefaultTimeout(STEP_TIMEOUT);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    const provenAt = Date.now();
    const handIns: number[] = [];
    page.on('response', (response) => {
      const request = response.request();
      if (request.method() === 'POST' && request.url().endsWith('/api/v1/wallet/treasury/signatures'))
        handIns.push(response.status());
    });
    const row = page.locator(`[data-testid="owners-request"][data-id="${id}"]`);
    await waitForText(row, 'Withdrawal of 250.00 USDC');
    await waitForText(row.getByTestId('owners-request-progress'), 'Waiting for 1 more owner signature');
    // A hybrid account held by passkeys alone: no browser wallet signs for it.
    assert.equal(await row.getByRole('button', { name: /^Sign with your wallet/ }).count(), 0);
    // The login's proof of presence grows old: the hand-in asks for a step-up, which the passkey answers.
    await new Promise((r) => setTimeout(r, provenAt + (STEP_UP_AGE_SECONDS + 1.5) * 1000 - Date.now()));
    await row.getByRole('button', { name: /^Sign with your passkey/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm it’s you' });
    await dialog.getByRole('button', { name: 'Use a passkey' }).click();
    await dialog.waitFor({ state: 'detached' });
    await waitForText(row, 'Signed with your passkey.');
    assert.deepEqual(handIns, [403, 200], 'refused for a step-up, then handed in again by itself');
    assert.equal(await row.getByTestId('owners-request-refused').count(), 0, server.output());
    await until('the withdrawal completes', async () => {
      const state = (await api('GET', `/wallet/withdrawals/${id}`)).body.data.status;
      assert.notEqual(state, 'failed', server.output());
      return state === 'completed';
    });
    await until(
      'the card shows it done',
      async () => (await row.getAttribute('data-status')) === 'completed',
    );
    await waitForText(row.getByTestId('owners-request-progress'), 'Done: confirmed on chain');
    await waitForText(row.getByTestId('owners-request-signed-by'), 'a passkey');
    await shot(page, 'treasury-passkey-01-signed');

    // The chain and the ledger agree: paid once, from the owners' account; the master wallet down by as much.
    assert.equal(await world.usdc.balanceOf(recipient), 250n * USDC);
    const withdrawal = (await api('GET', `/wallet/withdrawals/${id}`)).body.data;
    assert.match(withdrawal.txHash, /^0x[0-9a-f]{64}$/);
    assert.equal((await api('GET', '/wallet')).body.data.balance, '50.000000');
    const verified = await runCli(['verify-ledger', '--chain'], env);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
  });
});

// End-to-end: an agent host that knows only the URL connects by OAuth (contract section 12), with the official MCP
// SDK client's own OAuth support against the real server (child process), and the owner's consent in headless
// Chromium: discovery (the 401's resource_metadata, RFC 9728 and 8414 metadata), dynamic registration, PKCE, the
// consent page (choose the wallet and scopes, Allow), the code's exchange, tool calls with the token, a refresh when
// the access token is refused, and revocation from the wallet's keys tab — after which the client is refused.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Browser, Page } from 'playwright-core';
import {
  CHROMIUM_SKIP,
  ensureBuilt,
  GENEROUS_LIMITS,
  launchBrowser,
  type RunningServer,
  requireChromium,
  SCREENSHOT_DIR,
  STEP_TIMEOUT,
  startServer,
} from './support/e2e-helpers.ts';

const PASSWORD = 'correct horse battery staple';
/** Nothing listens here: the browser's navigation to it is caught by Playwright, as the host's own page would be. */
const REDIRECT_URL = 'http://127.0.0.1:9/oauth/callback';
const EXTERNAL_ADDRESS = `0x${'cd'.repeat(20)}`;

/** What an agent host keeps: its registration, the PKCE verifier of the flow in progress, and the tokens. */
class HostProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  get redirectUrl() {
    return REDIRECT_URL;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test Agent Host',
      redirect_uris: [REDIRECT_URL],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe('dashboard end to end: an agent host connects by OAuth', { skip: CHROMIUM_SKIP }, () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let base: string;
  let walletId = '';
  const provider = new HostProvider();
  let client: Client;

  async function rest(token: string, method: string, path: string, body?: unknown) {
    const response = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const envelope = (await response.json()) as { data?: Record<string, unknown> };
    assert.ok(response.ok, `${method} ${path}: ${response.status} ${JSON.stringify(envelope)}`);
    return envelope.data ?? {};
  }

  const connectClient = async () => {
    client = new Client({ name: 'test-agent-host', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider }),
    );
  };

  const callTool = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    assert.notEqual(result.isError, true, JSON.stringify(result));
    return result.structuredContent as Record<string, unknown>;
  };

  before(async () => {
    requireChromium();
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    ensureBuilt();
    server = await startServer(GENEROUS_LIMITS);
    base = server.baseUrl;
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(STEP_TIMEOUT);
  });

  after(async () => {
    await client?.close().catch(() => undefined);
    await browser?.close();
    await server?.stop();
  });

  it('the host discovers, registers and sends the owner to the consent page; Allow gives it a code', async () => {
    await page.goto(`${base}/signup`);
    await page.getByLabel('Email').fill(`e2e-oauth-${Date.now()}@example.com`);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    const token = await page.evaluate(
      () => (JSON.parse(sessionStorage.getItem('agent-wallet.session') ?? '{}') as { token: string }).token,
    );
    await rest(token, 'POST', '/wallet/sandbox/deposit', { amount: '100' });
    walletId = String((await rest(token, 'POST', '/agent-wallets', { label: 'Claude bot' })).id);
    await rest(token, 'POST', `/agent-wallets/${walletId}/fund`, { amount: '40' });

    // The host knows only the URL: the 401 leads it to the metadata, registration and the authorization URL.
    await assert.rejects(connectClient(), UnauthorizedError);
    assert.ok(provider.client?.client_id, 'registered by RFC 7591');
    const authorization = provider.authorizationUrl;
    assert.ok(authorization !== undefined);
    assert.equal(`${authorization.origin}${authorization.pathname}`, `${base}/oauth/authorize`);
    assert.equal(authorization.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authorization.searchParams.get('resource'), `${base}/mcp`);

    let redirectedTo = '';
    await page.route(`${REDIRECT_URL}**`, async (route) => {
      redirectedTo = route.request().url();
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'back at the host' });
    });
    await page.goto(authorization.toString());
    await page.getByRole('heading', { name: 'Allow Test Agent Host to use an agent wallet?' }).waitFor();
    assert.equal(await page.getByTestId('consent-redirect-host').textContent(), '127.0.0.1:9');
    await page.getByRole('combobox', { name: 'Agent wallet' }).selectOption({ label: 'Claude bot' });
    assert.equal(await page.getByLabel('Read').isChecked(), true);
    assert.equal(await page.getByLabel('Write').isChecked(), true);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'oauth-01-consent.png') });
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${REDIRECT_URL}**`);
    const back = new URL(redirectedTo);
    assert.equal(back.searchParams.get('iss'), base);
    const code = back.searchParams.get('code');
    assert.ok(code !== null, `no code in ${redirectedTo}`);

    // The host exchanges the code (with its PKCE verifier and the resource) and connects.
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider });
    await transport.finishAuth(code);
    assert.match(provider.saved?.access_token ?? '', /^svc_oat_/);
    await connectClient();
  });

  it('its token acts as a key of the chosen wallet: balance, a payment once, history', async () => {
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(tools.includes('send_payment') && tools.includes('check_balance'), tools.join());
    assert.equal((await callTool('check_balance', {})).walletId, walletId);
    const paid = await callTool('send_payment', {
      toAddress: EXTERNAL_ADDRESS,
      amount: '3',
      idempotencyKey: 'oauth-e2e-1',
    });
    const again = await callTool('send_payment', {
      toAddress: EXTERNAL_ADDRESS,
      amount: '3',
      idempotencyKey: 'oauth-e2e-1',
    });
    assert.equal(paid.txId, again.txId);
    assert.equal((await callTool('check_balance', {})).balance, '37.000000');
  });

  it('an access token the server refuses is refreshed by the client (the refresh token rotates)', async () => {
    const before = provider.saved;
    assert.ok(before?.refresh_token);
    provider.saved = { ...before, access_token: `svc_oat_${'x'.repeat(43)}` };
    assert.equal((await callTool('check_balance', {})).walletId, walletId);
    assert.notEqual(provider.saved?.refresh_token, before.refresh_token);
    assert.notEqual(provider.saved?.access_token, before.access_token);
  });

  it('the connection is listed on the keys tab; Revoke ends it and the host is refused', async () => {
    await page.goto(`${base}/agents/${walletId}?tab=keys`);
    const connection = page.getByTestId('connected-app');
    await connection.getByText('Test Agent Host').waitFor();
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'oauth-02-connected-app.png') });
    await connection.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('button', { name: 'Revoke access' }).click();
    await page.getByText('The connection of “Test Agent Host” is revoked.').waitFor();
    // Refused at once, and the client's refresh is refused too: it can only start over with the owner.
    const accessToken = provider.saved?.access_token;
    await assert.rejects(client.callTool({ name: 'check_balance', arguments: {} }));
    const direct = await fetch(`${base}/mcp/v1/tools/check_balance`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(direct.status, 401);
  });
});

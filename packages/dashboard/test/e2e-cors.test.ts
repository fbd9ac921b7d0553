// CORS as a browser enforces it (contract section 6, ALLOWED_ORIGINS): a page on an allowed origin calls the REST
// API and a tool with a bearer token and a JSON body (both need a preflight) and reads the answer and its
// X-Request-Id; a page on any other origin gets nothing (the browser's fetch fails). Chromium decides, not us.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  CHROMIUM_SKIP,
  ensureBuilt,
  freePort,
  GENEROUS_LIMITS,
  launchBrowser,
  type RunningServer,
  requireChromium,
  startServer,
} from './support/e2e-helpers.ts';

/** A blank page served on its own loopback origin: where the cross-origin calls come from. */
async function startPageOrigin(): Promise<{ origin: string; close: () => Promise<void> }> {
  const port = await freePort();
  const server: Server = createServer((_request, response) => {
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><title>app</title><p>app</p>');
  });
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

interface PageCall {
  ok: boolean;
  status?: number;
  requestId?: string | null;
  body?: { success: boolean; data?: Record<string, unknown> };
  error?: string;
}

/** fetch() from inside the page, as a front end on that origin would. */
function callFrom(page: Page, url: string, init: { method: string; token: string; body?: unknown }) {
  return page.evaluate(
    async ({ url, init }): Promise<PageCall> => {
      try {
        const response = await fetch(url, {
          method: init.method,
          headers: {
            authorization: `Bearer ${init.token}`,
            ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        });
        return {
          ok: true,
          status: response.status,
          requestId: response.headers.get('x-request-id'),
          body: await response.json(),
        };
      } catch (error) {
        return { ok: false, error: String(error) };
      }
    },
    { url, init },
  );
}

describe('CORS in a real browser', { skip: CHROMIUM_SKIP }, () => {
  let server: RunningServer;
  let browser: Browser;
  let allowed: Awaited<ReturnType<typeof startPageOrigin>>;
  let other: Awaited<ReturnType<typeof startPageOrigin>>;
  let token: string;
  let key: string;

  before(async () => {
    requireChromium();
    ensureBuilt();
    allowed = await startPageOrigin();
    other = await startPageOrigin();
    server = await startServer(GENEROUS_LIMITS, { ALLOWED_ORIGINS: allowed.origin });
    browser = await launchBrowser();
    const signup = await fetch(`${server.baseUrl}/api/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `cors.${process.pid}@example.test`, password: 'correct horse battery' }),
    });
    assert.equal(signup.status, 201);
    token = ((await signup.json()) as { data: { token: string } }).data.token;
    const wallet = await fetch(`${server.baseUrl}/api/v1/agent-wallets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ label: 'cors bot' }),
    });
    const walletId = ((await wallet.json()) as { data: { id: string } }).data.id;
    const created = await fetch(`${server.baseUrl}/api/v1/agent-wallets/${walletId}/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ label: 'cors' }),
    });
    key = ((await created.json()) as { data: { key: string } }).data.key;
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await allowed?.close();
    await other?.close();
  });

  async function pageOn(origin: string): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(`${origin}/`);
    return page;
  }

  it('a page on an allowed origin calls the API and a tool, and reads the answers', async () => {
    const page = await pageOn(allowed.origin);
    const wallets = await callFrom(page, `${server.baseUrl}/api/v1/agent-wallets`, { method: 'GET', token });
    assert.equal(wallets.ok, true, wallets.error);
    assert.equal(wallets.status, 200);
    assert.match(String(wallets.requestId), /\S/, 'X-Request-Id is readable');
    const created = await callFrom(page, `${server.baseUrl}/api/v1/agent-wallets`, {
      method: 'POST',
      token,
      body: { label: 'from the page' },
    });
    assert.equal(created.status, 201, JSON.stringify(created));
    const balance = await callFrom(page, `${server.baseUrl}/mcp/v1/tools/check_balance`, {
      method: 'POST',
      token: key,
      body: { params: {} },
    });
    assert.equal(balance.status, 200, JSON.stringify(balance));
    assert.equal(balance.body?.success, true);
    await page.close();
  });

  it('a page on any other origin gets nothing: the browser refuses', async () => {
    const page = await pageOn(other.origin);
    const read = await callFrom(page, `${server.baseUrl}/api/v1/agent-wallets`, { method: 'GET', token });
    assert.equal(read.ok, false, 'the answer reached the page');
    const wrote = await callFrom(page, `${server.baseUrl}/api/v1/agent-wallets`, {
      method: 'POST',
      token,
      body: { label: 'never' },
    });
    assert.equal(wrote.ok, false);
    const list = await fetch(`${server.baseUrl}/api/v1/agent-wallets`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const labels = ((await list.json()) as { data: { items: Array<{ label: string }> } }).data.items.map(
      (w) => w.label,
    );
    assert.deepEqual(labels.sort(), ['cors bot', 'from the page'], 'the refused origin created nothing');
    await page.close();
  });
});

// Per-call options and auto-pagination against a real server: a call's own timeout and AbortSignal (an aborted
// call is never retried), and async iteration over every page of a list.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  AgentWalletClient,
  type ApiKey,
  ManagementClient,
  NetworkError,
  paginate,
  type Transaction,
  type TransactionPage,
} from '../src/index.ts';
import { externalAddress, newAgent, rejection } from './support/fixtures.ts';
import { startServer, type TestServer } from './support/server.ts';

describe('per-call options and pagination', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server?.stop());

  /** A fetch that answers after `delayMs`, honouring the abort signal like the real one. */
  const slowFetch =
    (delayMs: number, calls: { n: number }) =>
    (
      url: string,
      init: { signal?: AbortSignal; method: string; headers: Record<string, string>; body?: string },
    ) => {
      calls.n += 1;
      return new Promise<Response>((resolve, reject) => {
        const timer = setTimeout(() => resolve(fetch(url, init)), delayMs);
        init.signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(new DOMException('aborted', 'AbortError'));
        });
      });
    };

  test('a call’s own timeoutMs wins over the client’s', async () => {
    const { apiKey } = await newAgent(server.url);
    const calls = { n: 0 };
    const agent = new AgentWalletClient({
      baseUrl: server.url,
      apiKey: apiKey.key,
      fetch: slowFetch(200, calls),
      maxRetries: 0,
    });
    assert.equal((await agent.checkBalance()).currency, 'USDC');
    const error = await rejection(() => agent.checkBalance({ timeoutMs: 50 }));
    assert.ok(error instanceof NetworkError);
    assert.equal(error.code, 'TIMEOUT');
  });

  test('an aborted call throws ABORTED and is not retried', async () => {
    const { apiKey } = await newAgent(server.url);
    const calls = { n: 0 };
    const agent = new AgentWalletClient({
      baseUrl: server.url,
      apiKey: apiKey.key,
      fetch: slowFetch(500, calls),
      maxRetries: 3,
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const error = await rejection(() =>
      agent.sendPayment({ toAddress: externalAddress(), amount: '1' }, { signal: controller.signal }),
    );
    assert.ok(error instanceof NetworkError);
    assert.equal(error.code, 'ABORTED');
    assert.equal(calls.n, 1, 'no retry after an abort');
    const already = new AbortController();
    already.abort();
    assert.equal(
      ((await rejection(() => agent.checkBalance({ signal: already.signal }))) as NetworkError).code,
      'ABORTED',
    );
  });

  test('management calls take per-request options through withOptions, without changing the client', async () => {
    const { mgmt } = await newAgent(server.url);
    const calls = { n: 0 };
    const slow = new ManagementClient({
      baseUrl: server.url,
      token: mgmt.token,
      fetch: slowFetch(200, calls),
      maxRetries: 0,
    });
    const timedOut = await rejection(() => slow.withOptions({ timeoutMs: 50 }).agentWallets.list());
    assert.ok(timedOut instanceof NetworkError);
    assert.equal(timedOut.code, 'TIMEOUT');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const aborted = await rejection(() => slow.withOptions({ signal: controller.signal }).wallet());
    assert.equal((aborted as NetworkError).code, 'ABORTED');
    assert.ok((await slow.agentWallets.list()).total >= 1, 'the client itself keeps its own timeout');
  });

  test('async iteration visits every transaction across pages, and paginate() does the same for any list', async () => {
    const { agent, mgmt, walletId } = await newAgent(server.url, { fund: '100' });
    for (let i = 0; i < 5; i += 1) await agent.sendPayment({ toAddress: externalAddress(), amount: '1' });
    const seen: string[] = [];
    for await (const tx of agent.transactions({}, 2)) seen.push(tx.id);
    assert.equal(seen.length, 6, '5 payments and the funding');
    assert.equal(new Set(seen).size, 6);
    const viaRest: string[] = [];
    for await (const tx of paginate((page) => mgmt.transactions.list(walletId, { page, limit: 4 })))
      viaRest.push(tx.id);
    assert.deepEqual(viaRest, seen);
  });

  test('every list call is the first page when awaited and every item when iterated (issue 30)', async () => {
    const { agent, mgmt, walletId } = await newAgent(server.url, { fund: '100' });
    for (let i = 0; i < 4; i += 1) await agent.sendPayment({ toAddress: externalAddress(), amount: '1' });
    // Awaited: the page, as before (types included: still assignable to a Promise of the page).
    const pending: Promise<TransactionPage<Transaction>> = mgmt.transactions.list(walletId, { limit: 2 });
    const first = await pending;
    assert.equal(first.transactions.length, 2);
    assert.equal(first.total, 5, '4 payments and the funding');
    assert.equal(await mgmt.transactions.list(walletId, { limit: 2 }).then((page) => page.limit), 2);
    // Iterated: every item of every page, each page fetched once, in order.
    const all: string[] = [];
    for await (const tx of mgmt.transactions.list(walletId, { limit: 2 })) {
      const typed: Transaction = tx;
      all.push(typed.id);
    }
    assert.equal(all.length, 5);
    assert.equal(new Set(all).size, 5);
    assert.deepEqual(
      all.slice(0, 2),
      first.transactions.map((t) => t.id),
    );
    // From a later page on: that page and the rest.
    const fromTwo: string[] = [];
    for await (const tx of mgmt.transactions.list(walletId, { limit: 2, page: 2 })) fromTwo.push(tx.id);
    assert.deepEqual(fromTwo, all.slice(2));
    // The agent's history too, and lists of items (`items`) as well as of transactions.
    const viaTool: string[] = [];
    for await (const tx of agent.getTxHistory({ limit: 3 })) viaTool.push(tx.id);
    assert.deepEqual(viaTool, all);
    await mgmt.keys.create(walletId, { label: 'second' });
    const keys: ApiKey[] = [];
    for await (const key of mgmt.keys.list(walletId, { limit: 1 })) keys.push(key);
    assert.equal(keys.length, 2, 'two pages of one key');
    assert.equal(new Set(keys.map((k) => k.id)).size, 2);
    const wallets: string[] = [];
    for await (const wallet of mgmt.agentWallets.list({ limit: 100 })) wallets.push(wallet.id);
    assert.ok(wallets.includes(walletId));
    // A failing first page rejects the await and the iteration alike.
    const missing = mgmt.transactions.list('aw_missing');
    await assert.rejects(missing, /not found/i);
    await assert.rejects(async () => {
      for await (const _ of mgmt.transactions.list('aw_missing')) assert.fail('no items');
    }, /not found/i);
  });
});

// ManagementClient against a real server: every method, happy path, typed data.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  AgentWalletClient,
  AuthenticationError,
  ManagementClient,
  type Movement,
  type Policy,
} from '../src/index.ts';
import { externalAddress, newAgent, newOwner, PASSWORD, rejection, uniqueEmail } from './support/fixtures.ts';
import { startServer, type TestServer } from './support/server.ts';

describe('ManagementClient', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server?.stop());

  test('health needs no token and says the rail', async () => {
    const health = await new ManagementClient({ baseUrl: server.url }).health();
    assert.equal(health.status, 'ok');
    assert.equal(health.rail, 'sandbox');
    assert.equal(health.database, 'up');
    assert.equal(typeof health.version, 'string');
  });

  test('signup keeps the token; me, logout (token dead and forgotten), login (token kept)', async () => {
    const mgmt = new ManagementClient({ baseUrl: server.url });
    const email = uniqueEmail();
    const session = await mgmt.signup({ email: `  ${email.toUpperCase()} `, password: PASSWORD });
    assert.equal(session.user.email, email);
    assert.equal(mgmt.token, session.token);
    assert.deepEqual(await mgmt.me(), { user: session.user });

    const oldToken = session.token;
    assert.deepEqual(await mgmt.logout(), { loggedOut: true });
    assert.equal(mgmt.token, undefined);
    const stale = new ManagementClient({ baseUrl: server.url, token: oldToken });
    assert.ok((await rejection(() => stale.me())) instanceof AuthenticationError);

    const again = await mgmt.login({ email, password: PASSWORD });
    assert.equal(again.user.id, session.user.id);
    assert.equal(mgmt.token, again.token);
    assert.equal((await mgmt.me()).user.id, session.user.id);

    const byToken = new ManagementClient({ baseUrl: server.url });
    byToken.token = again.token;
    assert.equal((await byToken.me()).user.email, email);
  });

  test('master wallet, its balance, sandbox deposits and the deposit list', async () => {
    const { mgmt } = await newOwner(server.url, {}, '0');
    const wallet = await mgmt.wallet();
    assert.equal(wallet.balance, '0.000000');
    assert.equal(wallet.currency, 'USDC');
    assert.match(wallet.address, /^0x[0-9a-fA-F]{40}$/);

    const first = await mgmt.sandboxDeposit('250.5');
    assert.equal(first.amount, '250.500000');
    assert.equal(first.balance, '250.500000');
    assert.equal(first.rail, 'sandbox');
    const second = await mgmt.sandboxDeposit('0.25');
    assert.equal(second.balance, '250.750000');
    assert.deepEqual(await mgmt.walletBalance(), { balance: '250.750000', currency: 'USDC' });

    const deposits = await mgmt.deposits();
    assert.equal(deposits.total, 2);
    assert.deepEqual(
      deposits.items.map((d) => d.id),
      [second.id, first.id],
    );
    const paged = await mgmt.deposits({ page: 2, limit: 1 });
    assert.deepEqual(
      paged.items.map((d) => d.id),
      [first.id],
    );
    assert.equal(paged.page, 2);
    assert.equal(paged.limit, 1);
  });

  test('agent wallets: create, list, get, rename, fund, withdraw, freeze, unfreeze', async () => {
    const { mgmt } = await newOwner(server.url, {}, '100');
    const created = await mgmt.agentWallets.create({ label: 'research bot' });
    assert.equal(created.label, 'research bot');
    assert.equal(created.balance, '0.000000');
    assert.equal(created.frozen, false);
    assert.equal(created.pendingApprovals, 0);
    const other = await mgmt.agentWallets.create({ label: 'other' });

    const list = await mgmt.agentWallets.list();
    assert.deepEqual(
      list.items.map((w) => w.id),
      [other.id, created.id],
    );
    assert.equal((await mgmt.agentWallets.list({ limit: 1 })).items.length, 1);
    assert.equal((await mgmt.agentWallets.get(created.id)).id, created.id);
    assert.equal((await mgmt.agentWallets.rename(created.id, 'renamed')).label, 'renamed');

    const funded: Movement = await mgmt.agentWallets.fund(created.id, { amount: '40' });
    assert.equal(funded.transaction.type, 'fund');
    assert.equal(funded.transaction.amount, '40.000000');
    assert.equal(funded.wallet.balance, '40.000000');
    assert.equal(funded.masterBalance, '60.000000');

    const idempotencyKey = `withdraw-${Date.now()}`;
    const withdrawn = await mgmt.agentWallets.withdraw(created.id, { amount: '15.5', idempotencyKey });
    assert.equal(withdrawn.transaction.type, 'withdraw');
    assert.equal(withdrawn.wallet.balance, '24.500000');
    assert.equal(withdrawn.masterBalance, '75.500000');
    const replay = await mgmt.agentWallets.withdraw(created.id, { amount: '15.5', idempotencyKey });
    assert.equal(replay.transaction.id, withdrawn.transaction.id);
    assert.equal((await mgmt.walletBalance()).balance, '75.500000');

    assert.equal((await mgmt.agentWallets.freeze(created.id)).frozen, true);
    assert.equal((await mgmt.agentWallets.get(created.id)).frozen, true);
    assert.equal((await mgmt.agentWallets.unfreeze(created.id)).frozen, false);
  });

  test('keys: create (shown once), list (never the key), rotate, revoke', async () => {
    const { mgmt, walletId } = await newAgent(server.url);
    const expiresAt = new Date(Date.now() + 86_400_000);
    const readKey = await mgmt.keys.create(walletId, { label: 'reader', scopes: ['read'], expiresAt });
    assert.match(readKey.key, /^svc_live_[0-9A-Za-z]{32,}$/);
    assert.deepEqual(readKey.scopes, ['read']);
    assert.equal(readKey.expiresAt, expiresAt.toISOString());
    assert.ok(readKey.key.startsWith(readKey.prefix));
    const csv = await mgmt.keys.create(walletId, { label: 'both', scopes: 'read,write' });
    assert.deepEqual(csv.scopes, ['read', 'write']);

    const listed = await mgmt.keys.list(walletId);
    assert.equal(listed.total, 3);
    assert.ok(!JSON.stringify(listed).includes(readKey.key));
    assert.equal(listed.items.find((k) => k.id === readKey.id)?.status, 'active');

    const rotated = await mgmt.keys.rotate(walletId, csv.id, { gracePeriodSeconds: 0 });
    assert.notEqual(rotated.key, csv.key);
    assert.equal(rotated.label, 'both');
    assert.equal(rotated.previousKey.id, csv.id);
    assert.equal(rotated.previousKey.rotatedToKeyId, rotated.id);
    const rotatedClient = new AgentWalletClient({ baseUrl: server.url, apiKey: rotated.key });
    assert.equal((await rotatedClient.checkBalance()).walletId, walletId);
    const graceful = await mgmt.keys.rotate(walletId, rotated.id);
    assert.equal(graceful.previousKey.status, 'rotating');

    const revoked = await mgmt.keys.revoke(walletId, readKey.id);
    assert.equal(revoked.status, 'revoked');
    const revokedClient = mgmt.agentClient(readKey.key);
    assert.ok((await rejection(() => revokedClient.checkBalance())) instanceof AuthenticationError);
  });

  test('policies: create each type, list, update (params and pause), delete', async () => {
    const { mgmt, walletId, agent } = await newAgent(server.url);
    const allowed = externalAddress();
    const cap: Policy = await mgmt.policies.create(walletId, {
      type: 'spend_cap_per_tx',
      params: { limit: '10' },
    });
    assert.equal(cap.type, 'spend_cap_per_tx');
    assert.deepEqual(cap.params, { limit: '10.000000' });
    assert.equal(cap.active, true);
    const allow = await mgmt.policies.create(walletId, {
      type: 'address_allowlist',
      params: { addresses: [allowed] },
    });
    assert.equal(allow.type === 'address_allowlist' && allow.params.addresses[0]?.toLowerCase(), allowed);
    await mgmt.policies.create(walletId, { type: 'spend_cap_daily', params: { limit: '100' } });
    await mgmt.policies.create(walletId, { type: 'spend_cap_total', params: { limit: '1000' } });
    await mgmt.policies.create(walletId, { type: 'require_approval_above', params: { amount: '90' } });

    const list = await mgmt.policies.list(walletId);
    assert.equal(list.total, 5);
    assert.equal(list.items[4]?.id, cap.id);

    const raised = await mgmt.policies.update(walletId, cap.id, { params: { limit: '20' } });
    assert.deepEqual(raised.params, { limit: '20.000000' });
    assert.equal((await agent.sendPayment({ toAddress: allowed, amount: '15' })).status, 'completed');
    const paused = await mgmt.policies.update(walletId, allow.id, { active: false });
    assert.equal(paused.active, false);
    assert.equal(
      (await agent.sendPayment({ toAddress: externalAddress(), amount: '1' })).status,
      'completed',
    );

    assert.deepEqual(await mgmt.policies.delete(walletId, cap.id), { id: cap.id, deleted: true });
    assert.equal((await mgmt.policies.list(walletId)).total, 4);
  });

  test('transactions: list with status filter, pending, get with events, approve, reject', async () => {
    const { mgmt, walletId, agent } = await newAgent(server.url);
    const first = await agent.requestApproval({ toAddress: externalAddress(), amount: '10', reason: 'a' });
    const second = await agent.requestApproval({ toAddress: externalAddress(), amount: '20', reason: 'b' });
    await agent.sendPayment({ toAddress: externalAddress(), amount: '1' });

    const pending = await mgmt.transactions.pending(walletId);
    assert.deepEqual(
      pending.transactions.map((t) => t.id),
      [second.txId, first.txId],
    );
    assert.equal(pending.transactions[0]?.status, 'pending');
    assert.equal(typeof pending.transactions[0]?.expiresAt, 'string');
    assert.equal((await mgmt.agentWallets.get(walletId)).pendingApprovals, 2);

    const approved = await mgmt.transactions.approve(walletId, first.txId);
    assert.equal(approved.id, first.txId);
    assert.equal(approved.status, 'completed');
    const rejected = await mgmt.transactions.reject(walletId, second.txId, { reason: 'not today' });
    assert.equal(rejected.status, 'rejected');
    const third = await agent.requestApproval({ toAddress: externalAddress(), amount: '5' });
    assert.equal((await mgmt.transactions.reject(walletId, third.txId)).status, 'rejected');

    const all = await mgmt.transactions.list(walletId);
    assert.equal(all.total, 5); // fund, two approvals, one payment, one more approval
    const completed = await mgmt.transactions.list(walletId, { status: 'completed', limit: 2 });
    assert.equal(completed.limit, 2);
    assert.ok(completed.transactions.every((t) => t.status === 'completed'));
    assert.equal(completed.total, 3);
    assert.equal((await mgmt.transactions.list(walletId, { status: 'rejected' })).total, 2);

    const detail = await mgmt.transactions.get(walletId, second.txId);
    assert.equal(detail.status, 'rejected');
    assert.deepEqual(
      detail.events.map((e) => e.status),
      ['pending', 'rejected'],
    );
    assert.equal(detail.events[1]?.note, 'not today');
    assert.equal((await agent.checkBalance()).balance, '89.000000');
  });

  test('agentClient(key) shares base URL and options', async () => {
    const { mgmt, apiKey, walletId } = await newAgent(server.url);
    const agent = mgmt.agentClient(apiKey.key);
    assert.equal(agent.baseUrl, server.url);
    assert.equal((await agent.checkBalance()).walletId, walletId);
  });
});

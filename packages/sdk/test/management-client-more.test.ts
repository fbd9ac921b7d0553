// ManagementClient's calls the dashboard uses beyond the first set: the wallet list's pending total, the policy
// simulator and audit trail, webhook endpoints with their delivery log, and deposits on their way (evm only).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NotFoundError, ValidationError } from '../src/index.ts';
import { externalAddress, newAgent, newOwner, rejection } from './support/fixtures.ts';
import { startServer, type TestServer } from './support/server.ts';

describe('ManagementClient: list totals, policy simulate and changes, webhooks', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  });
  after(() => server?.stop());

  test("the wallet list carries the waiting approvals of all the user's wallets", async () => {
    const { mgmt, agent } = await newAgent(server.url, { freshOwner: true });
    await mgmt.agentWallets.create({ label: 'second' });
    await agent.requestApproval({ toAddress: externalAddress(), amount: '3', reason: 'needed' });
    const page = await mgmt.agentWallets.list({ limit: 1 });
    assert.equal(page.items.length, 1);
    assert.equal(page.total, 2);
    assert.equal(page.pendingApprovals, 1);
  });

  test('policies.simulate judges a payment without storing it; policies.changes lists the audit', async () => {
    const { mgmt, walletId } = await newAgent(server.url);
    const cap = await mgmt.policies.create(walletId, { type: 'spend_cap_per_tx', params: { limit: '10' } });
    const denied = await mgmt.policies.simulate(walletId, { toAddress: externalAddress(), amount: '15' });
    assert.equal(denied.allowed, false);
    assert.equal(denied.violations[0]?.policyType, 'spend_cap_per_tx');
    assert.equal(denied.violations[0]?.policyId, cap.id);
    const passes = await mgmt.policies.simulate(walletId, { toAddress: externalAddress(), amount: '5' });
    assert.equal(passes.allowed, true);
    assert.equal(passes.requiresApproval, false);
    assert.equal(passes.balanceAfter, '95.000000');
    assert.equal((await mgmt.transactions.list(walletId)).total, 1, 'only the funding is stored');

    await mgmt.policies.update(walletId, cap.id, { active: false });
    const changes = await mgmt.policies.changes(walletId);
    assert.deepEqual(
      changes.items.map((c) => c.action),
      ['paused', 'created'],
    );
    assert.equal(changes.items[1]?.after?.id, cap.id);
    assert.match(changes.items[0]?.actor ?? '', /^user:/);
    assert.equal((await mgmt.policies.changes(walletId, { page: 2, limit: 1 })).items[0]?.action, 'created');
  });

  test('webhooks: create (secret once), list, update, rotateSecret, deliveries, redeliver, delete', async () => {
    const { mgmt } = await newOwner(server.url, {}, '0');
    const created = await mgmt.webhooks.create({
      url: 'http://127.0.0.1:9/hook',
      events: ['wallet.frozen'],
      description: 'sdk test',
    });
    assert.match(created.secret, /^whsec_/);
    assert.deepEqual(created.events, ['wallet.frozen']);
    const listed = await mgmt.webhooks.list();
    assert.deepEqual(
      listed.items.map((e) => e.id),
      [created.id],
    );
    assert.equal('secret' in (listed.items[0] ?? {}), false);
    const updated = await mgmt.webhooks.update(created.id, { events: null, description: 'all events' });
    assert.equal(updated.events, null);
    assert.equal(updated.description, 'all events');
    const rotated = await mgmt.webhooks.rotateSecret(created.id, { overlapSeconds: 60 });
    assert.match(rotated.secret, /^whsec_/);
    assert.notEqual(rotated.secret, created.secret);
    assert.ok(Date.parse(rotated.previousSecretExpiresAt) > Date.now());
    assert.match((await mgmt.webhooks.rotateSecret(created.id)).secret, /^whsec_/);
    assert.ok(
      (await rejection(() => mgmt.webhooks.rotateSecret(created.id, { overlapSeconds: -1 }))) instanceof
        ValidationError,
    );

    const wallet = await mgmt.agentWallets.create({ label: 'hooked' });
    await mgmt.agentWallets.freeze(wallet.id);
    const log = await mgmt.webhooks.deliveries(created.id);
    assert.equal(log.total, 1);
    const delivery = log.items[0]!;
    assert.equal(delivery.eventType, 'wallet.frozen');
    const again = await mgmt.webhooks.redeliver(created.id, delivery.id);
    assert.equal(again.id, delivery.id);
    assert.equal(again.status, 'pending');

    assert.deepEqual(await mgmt.webhooks.delete(created.id), { id: created.id, deleted: true });
    assert.equal((await mgmt.webhooks.list()).total, 0);
    assert.ok((await rejection(() => mgmt.webhooks.deliveries(created.id))) instanceof NotFoundError);
    assert.ok(
      (await rejection(() => mgmt.webhooks.create({ url: 'ftp://example.com/x' }))) instanceof
        ValidationError,
    );
  });

  test('pendingDeposits is an evm-rail call: a sandbox server answers NotFoundError', async () => {
    const { mgmt } = await newOwner(server.url, {}, '0');
    assert.ok((await rejection(() => mgmt.pendingDeposits())) instanceof NotFoundError);
  });
});

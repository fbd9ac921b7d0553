// Retention (services/retention.ts): sent webhook events, their deliveries and mails go 30 days after the event,
// in bounded rounds; an event with a delivery still pending stays; denials older than the longest auto_freeze
// window go. Payments, the ledger and the audit log are never touched. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PURGED_EVENTS_PER_ROUND_MAX, purgeSent, SENT_KEPT_MS } from '../src/services/retention.ts';
import { createKey, fund, OUTSIDE_ADDRESS, tool } from './support/agent.helpers.ts';
import { assertLedgerOk, countRows } from './support/foundation.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { as, call, fundedUser } from './support/http.ts';
import { waitFor } from './support/service-http.ts';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts';

const DAY_MS = 86_400_000;

for (const target of await storeTargets()) {
  describe(`retention (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let receiver: WebhookReceiver;
    before(async () => {
      h = await startHarness(target.name, 'retention', { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
      receiver = await startWebhookReceiver();
    });
    after(async () => {
      await h?.close();
      await receiver?.close();
    });

    const count = (table: 'webhook_events' | 'webhook_deliveries' | 'payment_denials' | 'transactions') =>
      countRows(h, table);

    test('events and their deliveries go 30 days after the event, not before; payments stay', async () => {
      const setup = await fundedUser(h.app, '1000');
      await fund(setup.user, setup.walletId, '100');
      const key = await createKey(setup.user, setup.walletId);
      const endpoint = await setup.user.api.post('/api/v1/webhooks', { url: receiver.url });
      assert.equal(endpoint.status, 201, endpoint.raw);
      const pay = () => tool(h.app, key, 'send_payment', { toAddress: OUTSIDE_ADDRESS, amount: '1' });
      for (let i = 0; i < 3; i += 1) assert.equal((await pay()).status, 200);
      assert.equal(await h.services.deliverWebhooks(), 3);
      const [events, deliveries, payments] = [
        await count('webhook_events'),
        await count('webhook_deliveries'),
        await count('transactions'),
      ];
      assert.ok(events >= 3 && deliveries >= 3);

      h.clock.advanceMs(SENT_KEPT_MS - DAY_MS);
      assert.equal(await purgeSent(h.services.store.db, h.clock.nowMs()), 0, 'a day before: nothing goes');
      h.clock.advanceMs(2 * DAY_MS);
      assert.equal((await pay()).status, 200); // a new event, kept
      const purged = await purgeSent(h.services.store.db, h.clock.nowMs());
      assert.equal(purged, events + deliveries);
      assert.equal(await count('webhook_events'), 1);
      assert.equal(await count('webhook_deliveries'), 1);
      assert.equal(await count('transactions'), payments + 1, 'payments are never purged');
      // A month on, the session has ended: log in again to read the endpoint's delivery log.
      const login = await call(h.app, 'POST', '/api/v1/auth/login', {
        email: setup.user.email,
        password: setup.user.password,
      });
      assert.equal(login.status, 200, login.raw);
      const log = await as(h.app, login.body.data.token).get(
        `/api/v1/webhooks/${endpoint.body.data.id}/deliveries`,
      );
      assert.equal(log.status, 200, log.raw);
      assert.equal(log.body.data.total, 1);
      await assertLedgerOk(h);
    });

    test('an event with a pending delivery stays; a round takes at most its bound', async () => {
      const db = h.services.store.db;
      const setup = await fundedUser(h.app, '10');
      const endpointId = (await setup.user.api.post('/api/v1/webhooks', { url: receiver.url })).body.data.id;
      const oldMs = BigInt(h.clock.nowMs() - SENT_KEPT_MS - DAY_MS);
      const events = Array.from({ length: PURGED_EVENTS_PER_ROUND_MAX + 2 }, (_, i) => ({
        id: `evt_retention_${i}`,
        user_id: setup.user.id,
        type: 'key.revoked',
        data_json: '{}',
        created_at_ms: oldMs + BigInt(i),
      }));
      await db.insertInto('webhook_events').values(events).execute();
      await db
        .insertInto('webhook_deliveries')
        .values({
          id: 'whd_retention_pending',
          endpoint_id: endpointId,
          event_id: 'evt_retention_0',
          event_type: 'key.revoked',
          status: 'pending',
          attempts: 0n,
          next_attempt_at_ms: BigInt(h.clock.nowMs() + 60_000),
          response_status: null,
          last_error: null,
          created_at_ms: oldMs,
          updated_at_ms: oldMs,
        })
        .execute();
      const first = await purgeSent(db, h.clock.nowMs());
      assert.equal(first, PURGED_EVENTS_PER_ROUND_MAX, 'one round, one bound');
      await purgeSent(db, h.clock.nowMs());
      const left = await db
        .selectFrom('webhook_events')
        .select('id')
        .where('id', 'like', 'evt_retention_%')
        .execute();
      assert.deepEqual(
        left.map((row) => row.id),
        ['evt_retention_0'],
        'the event with a pending delivery stays',
      );
    });

    test('denials older than the longest auto_freeze window go; newer ones are still counted', async () => {
      const db = h.services.store.db;
      const nowMs = h.clock.nowMs();
      await db
        .insertInto('payment_denials')
        .values([
          { wallet_id: 'aw_retention', at_ms: BigInt(nowMs - 31 * DAY_MS) },
          { wallet_id: 'aw_retention', at_ms: BigInt(nowMs - 29 * DAY_MS) },
        ])
        .execute();
      await purgeSent(db, nowMs);
      const left = await db
        .selectFrom('payment_denials')
        .select('at_ms')
        .where('wallet_id', '=', 'aw_retention')
        .execute();
      assert.deepEqual(
        left.map((row) => Number(row.at_ms)),
        [nowMs - 29 * DAY_MS],
      );
    });
  });

  describe(`retention set by EVENT_RETENTION_DAYS (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      // The service's own housekeeping runs (every 50 ms here), with its setting: a week.
      h = await startHarness(target.name, 'retention_days', {
        env: { EVENT_RETENTION_DAYS: '7' },
        backgroundIntervalMs: 50,
      });
    });
    after(async () => {
      await h?.close();
    });

    test('the housekeeping purges events older than the setting, and keeps the younger', async () => {
      const setup = await fundedUser(h.app, '10');
      const nowMs = h.clock.nowMs();
      const event = (id: string, ageMs: number) => ({
        id,
        user_id: setup.user.id,
        type: 'key.revoked',
        data_json: '{}',
        created_at_ms: BigInt(nowMs - ageMs),
      });
      await h.services.store.db
        .insertInto('webhook_events')
        .values([event('evt_days_8', 8 * DAY_MS), event('evt_days_6', 6 * DAY_MS)])
        .execute();
      const ids = async () =>
        (
          await h.services.store.db
            .selectFrom('webhook_events')
            .select('id')
            .where('id', 'like', 'evt_days_%')
            .execute()
        ).map((row) => row.id);
      await waitFor('the week-old event purged', async () => !(await ids()).includes('evt_days_8'), 10_000);
      assert.deepEqual(await ids(), ['evt_days_6'], 'six days old: kept');
    });
  });
}

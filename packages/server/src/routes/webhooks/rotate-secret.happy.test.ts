import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyWebhook } from '../../../../sdk/src/webhooks.ts';
import { assertKeys } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { signupUser, type TestUser } from '../../../test/support/http.ts';
import {
  expectedV1,
  type ReceivedDelivery,
  startWebhookReceiver,
  v1Values,
  type WebhookReceiver,
} from '../../../test/support/webhook-receiver.ts';

const SECRET_FORMAT = /^whsec_[0-9A-Za-z]{32,}$/;
const OVERLAP_DEFAULT = 86_400;
const OVERLAP_MAX = 604_800;

for (const target of await storeTargets()) {
  describe(`POST /webhooks/:id/rotate-secret happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let receiver: WebhookReceiver;
    before(async () => {
      h = await startHarness(target.name, 'webhooks_rotate_happy', {
        env: { WEBHOOK_ALLOW_PRIVATE: 'true' },
      });
      receiver = await startWebhookReceiver();
    });
    after(async () => {
      await h?.close();
      await receiver?.close();
    });

    async function userWithEndpoint(): Promise<{ user: TestUser; id: string; secret: string }> {
      const user = await signupUser(h.app);
      const created = await user.api.post('/api/v1/webhooks', {
        url: receiver.url,
        events: ['deposit.credited'],
      });
      assert.equal(created.status, 201, created.raw);
      return { user, id: created.body.data.id, secret: created.body.data.secret };
    }

    const rotate = (user: TestUser, id: string, body?: unknown) =>
      user.api.post(`/api/v1/webhooks/${id}/rotate-secret`, body);

    /** One event for the user's endpoint, delivered now; the delivery as received. */
    async function deliverOne(user: TestUser): Promise<ReceivedDelivery> {
      receiver.received.length = 0;
      const deposit = await user.api.post('/api/v1/wallet/sandbox/deposit', { amount: '1' });
      assert.equal(deposit.status, 201, deposit.raw);
      assert.equal(await h.services.deliverWebhooks(), 1);
      assert.equal(receiver.received.length, 1);
      return receiver.received[0]!;
    }

    const verifies = async (delivery: ReceivedDelivery, secret: string) => {
      const nowSeconds = Math.floor(h.clock.nowMs() / 1000);
      try {
        await verifyWebhook(delivery.body, delivery.signature, secret, 300, nowSeconds);
        return true;
      } catch {
        return false;
      }
    };

    test('200 a new secret (shown once) and when the replaced one stops signing', async () => {
      const { user, id, secret } = await userWithEndpoint();
      const reply = await rotate(user, id, { overlapSeconds: 600 });
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.success, true);
      assertKeys(reply.body.data, ['secret', 'previousSecretExpiresAt']);
      assert.match(reply.body.data.secret, SECRET_FORMAT);
      assert.notEqual(reply.body.data.secret, secret);
      assert.equal(
        reply.body.data.previousSecretExpiresAt,
        new Date(h.clock.nowMs() + 600_000).toISOString(),
      );
      assert.equal(reply.headers['cache-control'], 'no-store');
    });

    test('during the overlap a delivery carries both signatures, new first, each verifies; after it only the new', async () => {
      const { user, id, secret: old } = await userWithEndpoint();
      const reply = await rotate(user, id, { overlapSeconds: 600 });
      const fresh: string = reply.body.data.secret;

      let delivery = await deliverOne(user);
      assert.match(delivery.signature, /^t=[0-9]+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
      assert.deepEqual(v1Values(delivery.signature), [
        expectedV1(fresh, delivery),
        expectedV1(old, delivery),
      ]);
      assert.equal(await verifies(delivery, fresh), true, 'the new secret verifies');
      assert.equal(await verifies(delivery, old), true, 'the old secret verifies');
      assert.equal(await verifies(delivery, 'whsec_wrong'), false);

      h.clock.advanceSeconds(599);
      delivery = await deliverOne(user);
      assert.equal(v1Values(delivery.signature).length, 2, 'one second before the end: both');
      assert.equal(await verifies(delivery, old), true);

      h.clock.advanceSeconds(1);
      delivery = await deliverOne(user);
      assert.deepEqual(
        v1Values(delivery.signature),
        [expectedV1(fresh, delivery)],
        'at the end: only the new',
      );
      assert.equal(await verifies(delivery, fresh), true);
      assert.equal(await verifies(delivery, old), false, 'the old secret no longer verifies');
    });

    test('with no body or an empty one, the overlap is 86400 s', async () => {
      for (const body of [undefined, {}]) {
        const { user, id } = await userWithEndpoint();
        const reply = await rotate(user, id, body);
        assert.equal(reply.status, 200, reply.raw);
        assert.equal(
          reply.body.data.previousSecretExpiresAt,
          new Date(h.clock.nowMs() + OVERLAP_DEFAULT * 1000).toISOString(),
        );
      }
    });

    test('overlapSeconds 0: the old secret stops signing at once; the maximum, 7 days, is accepted', async () => {
      const { user, id, secret: old } = await userWithEndpoint();
      const reply = await rotate(user, id, { overlapSeconds: 0 });
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.data.previousSecretExpiresAt, new Date(h.clock.nowMs()).toISOString());
      const delivery = await deliverOne(user);
      assert.deepEqual(v1Values(delivery.signature), [expectedV1(reply.body.data.secret, delivery)]);
      assert.equal(await verifies(delivery, old), false);

      const longest = await rotate(user, id, { overlapSeconds: OVERLAP_MAX });
      assert.equal(longest.status, 200, longest.raw);
      assert.equal(
        longest.body.data.previousSecretExpiresAt,
        new Date(h.clock.nowMs() + OVERLAP_MAX * 1000).toISOString(),
      );
    });

    test('rotating again during an overlap replaces the previous secret with the current one', async () => {
      const { user, id, secret: first } = await userWithEndpoint();
      const second: string = (await rotate(user, id, { overlapSeconds: 600 })).body.data.secret;
      h.clock.advanceSeconds(60);
      const third = await rotate(user, id, { overlapSeconds: 300 });
      assert.equal(third.status, 200, third.raw);
      assert.equal(
        third.body.data.previousSecretExpiresAt,
        new Date(h.clock.nowMs() + 300_000).toISOString(),
      );
      const delivery = await deliverOne(user);
      assert.deepEqual(v1Values(delivery.signature), [
        expectedV1(third.body.data.secret, delivery),
        expectedV1(second, delivery),
      ]);
      assert.equal(await verifies(delivery, first), false, 'the first secret stopped at the second rotation');
    });

    test('the endpoint is otherwise unchanged: same id, URL and events, updatedAt moves', async () => {
      const { user, id } = await userWithEndpoint();
      const before = (await user.api.get('/api/v1/webhooks')).body.data.items[0];
      h.clock.advanceSeconds(5);
      assert.equal((await rotate(user, id)).status, 200);
      const after = (await user.api.get('/api/v1/webhooks')).body.data.items[0];
      assert.deepEqual({ ...after, updatedAt: before.updatedAt }, before);
      assert.equal(after.updatedAt, new Date(h.clock.nowMs()).toISOString());
    });
  });
}

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { agentWithKey } from '../../../test/support/agent.ts';
import { expectRejectsBadCredentials } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError, type Reply, signupUser, type TestUser } from '../../../test/support/http.ts';
import {
  expectedV1,
  startWebhookReceiver,
  v1Values,
  type WebhookReceiver,
} from '../../../test/support/webhook-receiver.ts';

for (const target of await storeTargets()) {
  describe(`POST /webhooks/:id/rotate-secret security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let receiver: WebhookReceiver;
    const lines: string[] = [];
    before(async () => {
      const sink = new Writable({
        write(chunk, _encoding, done) {
          lines.push(...String(chunk).split('\n').filter(Boolean));
          done();
        },
      });
      h = await startHarness(target.name, 'webhooks_rotate_security', {
        env: { WEBHOOK_ALLOW_PRIVATE: 'true' },
        logTo: sink,
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

    const rotateUrl = (id: string) => `/api/v1/webhooks/${id}/rotate-secret`;

    const stored = (id: string) =>
      h.services.store.db
        .selectFrom('webhook_endpoints')
        .select(['secret', 'previous_secret', 'previous_secret_expires_at_ms'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();

    const assertHidden = (reply: Reply, secrets: readonly string[], what: string) => {
      for (const secret of secrets) {
        assert.ok(!reply.raw.includes(secret), `${what} shows a secret`);
        assert.ok(!reply.raw.includes(secret.slice('whsec_'.length)), `${what} shows a secret's random part`);
      }
    };

    test('without a valid JWT: 401 UNAUTHORIZED, the secret unchanged (an API key included)', async () => {
      const { user, id } = await userWithEndpoint();
      const before = await stored(id);
      await expectRejectsBadCredentials(h, user, await signupUser(h.app), 'POST', rotateUrl(id), {});
      const agent = await agentWithKey(h);
      expectError(await call(h.app, 'POST', rotateUrl(id), {}, { token: agent.key }), 401, 'UNAUTHORIZED');
      assert.deepEqual(await stored(id), before);
    });

    test("another user's endpoint is a 404 NOT_FOUND: no secret shown, theirs unchanged and still alone signing", async () => {
      const victim = await userWithEndpoint();
      const intruder = await userWithEndpoint();
      const before = await stored(victim.id);
      for (const overlapSeconds of [undefined, 0, 600]) {
        const reply = await intruder.user.api.post(
          rotateUrl(victim.id),
          overlapSeconds === undefined ? undefined : { overlapSeconds },
        );
        expectError(reply, 404, 'NOT_FOUND');
        assert.ok(!/whsec_/.test(reply.raw), 'a refusal shows a secret');
      }
      assert.deepEqual(await stored(victim.id), before);
      receiver.received.length = 0;
      await victim.user.api.post('/api/v1/wallet/sandbox/deposit', { amount: '1' });
      assert.equal(await h.services.deliverWebhooks(), 1);
      const [delivery] = receiver.received;
      assert.deepEqual(v1Values(delivery!.signature), [expectedV1(victim.secret, delivery!)]);
    });

    test('neither secret appears in any later answer or in any log line', async () => {
      const { user, id, secret: old } = await userWithEndpoint();
      const rotated = await user.api.post(rotateUrl(id), { overlapSeconds: 600 });
      assert.equal(rotated.status, 200, rotated.raw);
      const fresh: string = rotated.body.data.secret;
      await user.api.post('/api/v1/wallet/sandbox/deposit', { amount: '1' });
      await h.services.deliverWebhooks();
      const answers: Array<[string, Reply]> = [
        ['the list', await user.api.get('/api/v1/webhooks')],
        ['a change', await user.api.patch(`/api/v1/webhooks/${id}`, { description: 'rotated' })],
        ['the delivery log', await user.api.get(`/api/v1/webhooks/${id}/deliveries`)],
        ['a refused rotation', await user.api.post(rotateUrl(id), { overlapSeconds: -1 })],
      ];
      for (const [what, reply] of answers) {
        assert.ok(reply.status < 500, `${what}: ${reply.raw}`);
        assertHidden(reply, [old, fresh], what);
      }
      await new Promise((resolve) => setImmediate(resolve));
      assert.ok(lines.length > 0, 'logging is on');
      for (const line of lines) {
        for (const secret of [old, fresh]) {
          assert.ok(!line.includes(secret.slice('whsec_'.length)), `a log line holds a secret: ${line}`);
        }
      }
    });

    test('the replaced secret is not kept at rest: not with no overlap, nor after its overlap', async () => {
      const { user, id } = await userWithEndpoint();
      assert.equal((await user.api.post(rotateUrl(id), { overlapSeconds: 0 })).status, 200);
      assert.equal((await stored(id)).previous_secret, null, 'no overlap: dropped at once');

      const overlapped = await user.api.post(rotateUrl(id), { overlapSeconds: 60 });
      assert.equal(overlapped.status, 200);
      assert.notEqual((await stored(id)).previous_secret, null, 'kept while it signs');
      h.clock.advanceSeconds(60);
      await user.api.post('/api/v1/wallet/sandbox/deposit', { amount: '1' });
      assert.equal(await h.services.deliverWebhooks(), 1);
      assert.equal(
        (await stored(id)).previous_secret,
        null,
        'dropped by the first delivery after its overlap',
      );
    });
  });
}

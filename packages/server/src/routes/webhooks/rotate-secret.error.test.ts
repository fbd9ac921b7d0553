import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectValidation } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError, signupUser, type TestUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /webhooks/:id/rotate-secret error (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'webhooks_rotate_error', {
        env: { WEBHOOK_ALLOW_PRIVATE: 'true' },
      });
    });
    after(() => h?.close());

    async function userWithEndpoint(): Promise<{ user: TestUser; id: string }> {
      const user = await signupUser(h.app);
      const created = await user.api.post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/hooks' });
      assert.equal(created.status, 201, created.raw);
      return { user, id: created.body.data.id };
    }

    /** The stored secrets of every endpoint: a refused rotation changes none. */
    const secrets = () =>
      h.services.store.db
        .selectFrom('webhook_endpoints')
        .select(['id', 'secret', 'previous_secret', 'previous_secret_expires_at_ms', 'updated_at_ms'])
        .orderBy('id')
        .execute();

    const rotate = (user: TestUser, id: string, body?: unknown) =>
      user.api.post(`/api/v1/webhooks/${id}/rotate-secret`, body);

    test('overlapSeconds negative, over 604800, not an integer or not a number is a 400 naming it', async () => {
      const { user, id } = await userWithEndpoint();
      const before = await secrets();
      for (const overlapSeconds of [-1, 604_801, 1.5, '60', '', null, true, [60], { s: 1 }, 1e20]) {
        expectValidation(await rotate(user, id, { overlapSeconds }), 'overlapSeconds');
      }
      assert.deepEqual(await secrets(), before, 'a refused rotation changed a secret');
    });

    test('unknown body fields and a body that is not an object are a 400', async () => {
      const { user, id } = await userWithEndpoint();
      const before = await secrets();
      for (const [field, value] of Object.entries({
        secret: 'whsec_chosenbytheclientchosenbytheclient',
        url: 'http://127.0.0.1:9/other',
        gracePeriodSeconds: 60,
      })) {
        expectValidation(await rotate(user, id, { [field]: value }), field);
      }
      for (const raw of ['[]', '"x"', '{"overlapSeconds":']) {
        expectError(await rotate(user, id, raw), 400, 'VALIDATION_ERROR');
      }
      assert.deepEqual(await secrets(), before);
    });

    test('an unknown or deleted endpoint is a 404 NOT_FOUND', async () => {
      const { user, id } = await userWithEndpoint();
      expectError(await rotate(user, 'whk_nope'), 404, 'NOT_FOUND');
      assert.equal((await user.api.delete(`/api/v1/webhooks/${id}`)).status, 200);
      expectError(await rotate(user, id), 404, 'NOT_FOUND');
    });
  });
}

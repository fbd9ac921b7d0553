import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectExpiredTokenRejected, expectRejectsBadCredentials } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /agent-wallets security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'aw_list_security');
    });
    after(() => h.close());

    test('every bad credential is 401', async () => {
      await expectRejectsBadCredentials(
        h,
        await signupUser(h.app),
        await signupUser(h.app),
        'GET',
        '/api/v1/agent-wallets',
      );
    });

    test('an expired token is 401', async () => {
      await expectExpiredTokenRejected(h, await signupUser(h.app), 'GET', '/api/v1/agent-wallets');
    });

    test("a user never sees another user's wallets, whatever the query", async () => {
      const a = await signupUser(h.app);
      const b = await signupUser(h.app);
      const wa = await a.api.post('/api/v1/agent-wallets', { label: 'a-only' });
      await b.api.post('/api/v1/agent-wallets', { label: 'b-1' });
      await b.api.post('/api/v1/agent-wallets', { label: 'b-2' });
      const listA = await a.api.get('/api/v1/agent-wallets?limit=100');
      assert.equal(listA.body.data.total, 1);
      assert.deepEqual(
        listA.body.data.items.map((w: { id: string }) => w.id),
        [wa.body.data.id],
      );
      const listB = await b.api.get('/api/v1/agent-wallets?limit=100');
      assert.equal(listB.body.data.total, 2);
      assert.ok(!listB.raw.includes(wa.body.data.id));
      assert.ok(!listB.raw.includes('a-only'));
      // The master wallet is not an agent wallet.
      const master = await a.api.get('/api/v1/wallet');
      assert.ok(!listA.raw.includes(master.body.data.id));
    });
  });
}

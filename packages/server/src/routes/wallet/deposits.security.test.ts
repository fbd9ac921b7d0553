import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectExpiredTokenRejected, expectRejectsBadCredentials } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /wallet/deposits security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'deposits_security');
    });
    after(() => h.close());

    test('every bad credential is 401', async () => {
      await expectRejectsBadCredentials(
        h,
        await signupUser(h.app),
        await signupUser(h.app),
        'GET',
        '/api/v1/wallet/deposits',
      );
    });

    test('an expired token is 401', async () => {
      await expectExpiredTokenRejected(h, await signupUser(h.app), 'GET', '/api/v1/wallet/deposits');
    });

    test('a user lists only their own deposits', async () => {
      const a = await signupUser(h.app);
      const b = await signupUser(h.app);
      const mine = await a.api.post('/api/v1/wallet/sandbox/deposit', { amount: '1' });
      await b.api.post('/api/v1/wallet/sandbox/deposit', { amount: '2' });
      await b.api.post('/api/v1/wallet/sandbox/deposit', { amount: '3' });
      const listA = await a.api.get('/api/v1/wallet/deposits');
      assert.equal(listA.body.data.total, 1);
      assert.deepEqual(
        listA.body.data.items.map((d: { id: string }) => d.id),
        [mine.body.data.id],
      );
      const listB = await b.api.get(`/api/v1/wallet/deposits?limit=100`);
      assert.equal(listB.body.data.total, 2);
      assert.ok(!listB.raw.includes(mine.body.data.id));
    });
  });
}

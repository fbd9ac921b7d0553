import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertAgentWalletShape, assertLedgerOk } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, fundedUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets/:id/freeze happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'aw_freeze_happy');
    });
    after(() => h.close());

    test('answers 200 with the wallet, frozen; reads show it frozen', async () => {
      const { user, walletId, wallet } = await fundedUser(h.app, '10');
      h.clock.advanceSeconds(30);
      const reply = await user.api.post(`/api/v1/agent-wallets/${walletId}/freeze`, {});
      assert.equal(reply.status, 200, reply.raw);
      assertAgentWalletShape(reply.body.data);
      assert.equal(reply.body.data.frozen, true);
      assert.equal(reply.body.data.updatedAt, new Date(h.clock.nowMs()).toISOString());
      assert.equal(reply.body.data.label, wallet.label);
      assert.equal((await user.api.get(`/api/v1/agent-wallets/${walletId}`)).body.data.frozen, true);
      const listed = await user.api.get('/api/v1/agent-wallets');
      assert.equal(listed.body.data.items[0].frozen, true);
    });

    test('works with no body, an empty JSON body, and {}', async () => {
      const { user, walletId } = await fundedUser(h.app, '1');
      const url = `/api/v1/agent-wallets/${walletId}/freeze`;
      const noBody = await call(h.app, 'POST', url, undefined, { token: user.token });
      assert.equal(noBody.status, 200, `no body: ${noBody.raw}`);
      const empty = await call(h.app, 'POST', url, '', {
        token: user.token,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(empty.status, 200, `empty JSON body: ${empty.raw}`);
      const object = await call(h.app, 'POST', url, {}, { token: user.token });
      assert.equal(object.status, 200, `{}: ${object.raw}`);
      assert.equal(object.body.data.frozen, true);
    });

    test('freezing twice changes nothing: the first freeze stands', async () => {
      const { user, walletId } = await fundedUser(h.app, '1');
      const first = await user.api.post(`/api/v1/agent-wallets/${walletId}/freeze`, {});
      h.clock.advanceSeconds(60);
      const second = await user.api.post(`/api/v1/agent-wallets/${walletId}/freeze`, {});
      assert.equal(second.status, 200, second.raw);
      assert.deepEqual(second.body.data, first.body.data);
    });

    test('the owner can still fund and withdraw a frozen wallet', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      assert.equal((await user.api.post(`/api/v1/agent-wallets/${walletId}/freeze`, {})).status, 200);
      const fund = await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '6' });
      assert.equal(fund.status, 200, fund.raw);
      assert.equal(fund.body.data.wallet.frozen, true);
      const withdraw = await user.api.post(`/api/v1/agent-wallets/${walletId}/withdraw`, { amount: '2.5' });
      assert.equal(withdraw.status, 200, withdraw.raw);
      assert.equal(withdraw.body.data.wallet.balance, '3.500000');
      assert.equal(withdraw.body.data.masterBalance, '6.500000');
      const txs = await user.api.get(`/api/v1/agent-wallets/${walletId}/transactions`);
      assert.equal(txs.status, 200, 'reads still work on a frozen wallet');
      assert.equal(txs.body.data.total, 2);
      await assertLedgerOk(h);
    });
  });
}

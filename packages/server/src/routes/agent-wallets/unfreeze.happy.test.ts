import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertAgentWalletShape } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, fundedUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets/:id/unfreeze happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'aw_unfreeze_happy');
    });
    after(() => h.close());

    test('unfreezes a frozen wallet: 200 with frozen false and a new updatedAt', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      assert.equal((await user.api.post(`/api/v1/agent-wallets/${walletId}/freeze`, {})).status, 200);
      h.clock.advanceSeconds(300);
      const reply = await user.api.post(`/api/v1/agent-wallets/${walletId}/unfreeze`, {});
      assert.equal(reply.status, 200, reply.raw);
      assertAgentWalletShape(reply.body.data);
      assert.equal(reply.body.data.frozen, false);
      assert.equal(reply.body.data.updatedAt, new Date(h.clock.nowMs()).toISOString());
      assert.equal((await user.api.get(`/api/v1/agent-wallets/${walletId}`)).body.data.frozen, false);
    });

    test('unfreezing a wallet that is not frozen changes nothing', async () => {
      const { user, walletId, wallet } = await fundedUser(h.app, '1');
      h.clock.advanceSeconds(60);
      const reply = await user.api.post(`/api/v1/agent-wallets/${walletId}/unfreeze`, {});
      assert.equal(reply.status, 200, reply.raw);
      assert.deepEqual(reply.body.data, wallet);
    });

    test('works with no body and with an empty JSON body', async () => {
      const { user, walletId } = await fundedUser(h.app, '1');
      const url = `/api/v1/agent-wallets/${walletId}/unfreeze`;
      await user.api.post(`/api/v1/agent-wallets/${walletId}/freeze`, {});
      const noBody = await call(h.app, 'POST', url, undefined, { token: user.token });
      assert.equal(noBody.status, 200, `no body: ${noBody.raw}`);
      await user.api.post(`/api/v1/agent-wallets/${walletId}/freeze`, {});
      const empty = await call(h.app, 'POST', url, '', {
        token: user.token,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(empty.status, 200, `empty JSON body: ${empty.raw}`);
      assert.equal(empty.body.data.frozen, false);
    });

    test('freeze and unfreeze can alternate', async () => {
      const { user, walletId } = await fundedUser(h.app, '1');
      for (let i = 0; i < 3; i += 1) {
        assert.equal(
          (await user.api.post(`/api/v1/agent-wallets/${walletId}/freeze`, {})).body.data.frozen,
          true,
        );
        assert.equal(
          (await user.api.post(`/api/v1/agent-wallets/${walletId}/unfreeze`, {})).body.data.frozen,
          false,
        );
      }
    });
  });
}

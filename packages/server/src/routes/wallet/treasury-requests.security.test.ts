// GET /wallet/treasury/signatures and who sees what: another organization sees none of this one's withdrawals
// (nor counts them), a viewer of this one reads them but may not sign (403 FORBIDDEN_ROLE, nothing stored), and
// the owners' signatures themselves are never shown — only who signed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Address, Hex } from 'viem';
import { anvilAvailable } from '../../../test/support/anvil.ts';
import {
  type AwaitingSignatures,
  awaitingWithdrawal,
  owners,
  startBoundedWorld,
} from '../../../test/support/bounded.ts';
import type { EvmWorld } from '../../../test/support/evm.ts';
import { type Harness, storeTargets } from '../../../test/support/harness.ts';
import { addMember, expectError, signupUser, type TestUser } from '../../../test/support/http.ts';

const probe = await anvilAvailable();
const URL = '/api/v1/wallet/treasury/signatures';

for (const target of await storeTargets()) {
  describe(`GET ${URL} security (${target.name})`, {
    skip: probe.available ? target.skip : probe.skip,
  }, () => {
    let world: EvmWorld;
    let h: Harness;
    let owner: TestUser;
    let asked: AwaitingSignatures;
    let signature: Hex;
    before(async () => {
      ({ world, h } = await startBoundedWorld(target.name, 'treasury_requests_security', {
        allowance: '10',
        floatMax: '5',
        fundMicros: 1_000n * 1_000_000n,
        env: { WITHDRAWAL_ADDRESS_DELAY_SECONDS: '0' },
      }));
      owner = await signupUser(h.app);
      asked = await awaitingWithdrawal(h, world, owner, '50', `0x${'d5'.repeat(20)}` as Address);
      signature = await owners[0]!.signTypedData(asked.signRequest.typedData);
      const signed = await owner.api.post(URL, { id: asked.id, signature });
      assert.equal(signed.status, 200, signed.raw);
    });
    after(async () => {
      await h?.close();
      await world?.anvil.stop();
    });

    test("another organization's owner sees none of it, not even its count", async () => {
      const stranger = await signupUser(h.app);
      const reply = await stranger.api.get(URL);
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.data.total, 0);
      assert.deepEqual(reply.body.data.items, []);
      const filtered = await stranger.api.get(`${URL}?status=awaiting_signatures`);
      assert.equal(filtered.body.data.total, 0);
    });

    test('a viewer of the organization reads the request but may not sign it: 403, nothing stored', async () => {
      const { member: viewer } = await addMember(h.app, owner, 'viewer');
      const listed = await viewer.api.get(URL);
      assert.equal(listed.status, 200, listed.raw);
      assert.deepEqual(
        listed.body.data.items.map((r: { id: string }) => r.id),
        [asked.id],
      );
      const refused = await viewer.api.post(URL, {
        id: asked.id,
        signature: await owners[1]!.signTypedData(asked.signRequest.typedData),
      });
      expectError(refused, 403, 'FORBIDDEN_ROLE');
      const after = (await owner.api.get(URL)).body.data.items[0];
      assert.equal(after.signaturesNeeded, 1, 'the viewer’s hand-in changed nothing');
      assert.equal(after.status, 'awaiting_signatures');
    });

    test('the signatures handed in are never shown, only who signed', async () => {
      const reply = await owner.api.get(URL);
      assert.equal(reply.body.data.items[0].signedBy.length, 1);
      assert.ok(!reply.raw.toLowerCase().includes(signature.slice(2).toLowerCase()), 'a signature leaked');
      assert.ok(!reply.raw.includes('signatures_json'));
    });
  });
}

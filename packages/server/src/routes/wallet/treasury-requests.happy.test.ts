// GET /wallet/treasury/signatures (bounded mode, on anvil with the framework's npm bytecode): what waits for the
// owners and what they signed lately, newest first, each with its signRequest and who signed; by status, by page
// and by cursor; a finished request stays listed with its end.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getAddress, type Hex } from 'viem';
import { anvilAvailable, mine } from '../../../test/support/anvil.ts';
import {
  type AwaitingSignatures,
  boundedWithWaitingWithdrawals,
  owners,
} from '../../../test/support/bounded.ts';
import type { EvmWorld } from '../../../test/support/evm.ts';
import { assertIso, assertKeys } from '../../../test/support/foundation.ts';
import { type Harness, storeTargets } from '../../../test/support/harness.ts';
import { signupUser, type TestUser } from '../../../test/support/http.ts';
import { activeDelegation, shapeOf } from '../../chain/bounded/bounded.ts';
import { createOwnersRequest } from '../../chain/bounded/owners-requests.ts';

const probe = await anvilAvailable();
const URL = '/api/v1/wallet/treasury/signatures';
const KEYS = [
  'id',
  'kind',
  'status',
  'amount',
  'change',
  'toAddress',
  'signRequest',
  'signaturesNeeded',
  'signedBy',
  'createdAt',
  'expiresAt',
];
const WEEK_MS = 7 * 24 * 60 * 60_000;

for (const target of await storeTargets()) {
  describe(`GET ${URL} happy (${target.name})`, { skip: probe.available ? target.skip : probe.skip }, () => {
    let world: EvmWorld;
    let h: Harness;
    let owner: TestUser;
    const asked: AwaitingSignatures[] = [];
    const rounds = async (n: number) => {
      for (let i = 0; i < n; i += 1) {
        await h.services.chain!.duties.send();
        await mine(world.anvil, 1);
      }
    };
    const sign = (who: number, request: AwaitingSignatures) =>
      owners[who]!.signTypedData(request.signRequest.typedData) as Promise<Hex>;

    before(async () => {
      const started = await boundedWithWaitingWithdrawals(target.name, 'treasury_requests_happy');
      ({ world, h, owner } = started);
      asked.push(...started.asked);
    });
    after(async () => {
      await h?.close();
      await world?.anvil.stop();
    });

    test('three withdrawals waiting: newest first, each with its signRequest, none signed yet', async () => {
      const reply = await owner.api.get(URL);
      assert.equal(reply.status, 200, reply.raw);
      const data = reply.body.data;
      assertKeys(data, ['items', 'total', 'page', 'limit', 'nextCursor']);
      assert.equal(data.total, 3);
      assert.equal(data.nextCursor, null);
      assert.deepEqual(
        data.items.map((r: { id: string }) => r.id),
        [...asked].reverse().map((a) => a.id),
      );
      const newest = data.items[0];
      assertKeys(newest, KEYS);
      assert.equal(newest.kind, 'transfer');
      assert.equal(newest.status, 'awaiting_signatures');
      assert.equal(newest.amount, '80.000000');
      assert.equal(newest.change, null, 'a transfer changes no owners');
      assert.equal(newest.toAddress, getAddress(`0x${'c3'.repeat(20)}`));
      assert.deepEqual(newest.signRequest, asked[2]!.signRequest);
      assert.equal(newest.signaturesNeeded, 2);
      assert.deepEqual(newest.signedBy, []);
      assertIso(newest.createdAt);
      assert.equal(Date.parse(newest.expiresAt) - Date.parse(newest.createdAt), WEEK_MS);
    });

    test('a signature handed in shows: one still needed, who signed', async () => {
      const signed = await owner.api.post(URL, { id: asked[0]!.id, signature: await sign(1, asked[0]!) });
      assert.equal(signed.status, 200, signed.raw);
      const listed = (await owner.api.get(URL)).body.data.items.find(
        (r: { id: string }) => r.id === asked[0]!.id,
      );
      assert.equal(listed.signaturesNeeded, 1);
      assert.deepEqual(listed.signedBy, [getAddress(owners[1]!.address)]);
      assert.equal(listed.status, 'awaiting_signatures');
    });

    test('limit 1 pages by page and by cursor alike, never overlapping', async () => {
      const byPage: string[] = [];
      for (let page = 1; page <= 3; page += 1)
        byPage.push((await owner.api.get(`${URL}?limit=1&page=${page}`)).body.data.items[0].id);
      const byCursor: string[] = [];
      let cursor: string | null = null;
      do {
        const reply = await owner.api.get(`${URL}?limit=1${cursor === null ? '' : `&cursor=${cursor}`}`);
        assert.equal(reply.status, 200, reply.raw);
        assert.equal(reply.body.data.total, 3);
        byCursor.push(...reply.body.data.items.map((r: { id: string }) => r.id));
        cursor = reply.body.data.nextCursor;
      } while (cursor !== null && byCursor.length < 10);
      assert.deepEqual(byCursor, byPage);
      assert.equal(new Set(byPage).size, 3);
    });

    test('a request the owners finish stays listed with its end; status filters keep what still waits', async () => {
      await owner.api.post(URL, { id: asked[1]!.id, signature: await sign(0, asked[1]!) });
      const last = await owner.api.post(URL, { id: asked[1]!.id, signature: await sign(2, asked[1]!) });
      assert.equal(last.body.data.status, 'submitted', last.raw);
      await rounds(3);
      const all = (await owner.api.get(URL)).body.data.items;
      const done = all.find((r: { id: string }) => r.id === asked[1]!.id);
      assert.equal(done.status, 'completed');
      assert.equal(done.signaturesNeeded, 0);
      assert.equal(done.expiresAt, null, 'nothing left to expire');
      assert.equal(done.signedBy.length, 2);
      const waiting = (await owner.api.get(`${URL}?status=awaiting_signatures`)).body.data;
      assert.equal(waiting.total, 2);
      assert.deepEqual(
        waiting.items.map((r: { id: string }) => r.id),
        [asked[2]!.id, asked[0]!.id],
      );
      const completed = (await owner.api.get(`${URL}?status=completed`)).body.data;
      assert.deepEqual(
        completed.items.map((r: { id: string }) => r.id),
        [asked[1]!.id],
      );
    });

    test("the treasury's own request (a revocation) is listed for every organization", async () => {
      const rail = h.services.chain!.rail;
      const stored = (await activeDelegation(
        h.services.store.db,
        rail.client,
        rail.config,
        shapeOf(rail.config, rail.keys),
      ))!;
      h.clock.advanceSeconds(1);
      const revoke = await createOwnersRequest(
        {
          ctx: {
            store: h.services.store,
            writer: h.services.writer,
            clock: h.clock,
            books: undefined as never,
          },
          client: rail.client,
          config: rail.config,
          keys: rail.keys,
        },
        { kind: 'revoke', delegation: stored.delegation },
      );
      const newest = (await owner.api.get(URL)).body.data.items[0];
      assert.equal(newest.id, revoke.id);
      assert.equal(newest.kind, 'revoke');
      assert.equal(newest.amount, null);
      assert.equal(newest.toAddress, null);
      assert.equal(newest.expiresAt, null);
      const other = await signupUser(h.app);
      const theirs = (await other.api.get(URL)).body.data;
      assert.deepEqual(
        theirs.items.map((r: { id: string }) => r.id),
        [revoke.id],
      );
    });
  });
}

// ManagementClient.treasuryRequests(): GET /api/v1/wallet/treasury/signatures against a real bounded treasury (the
// server on anvil with the delegation framework deployed, TREASURY_MODE=bounded, three owners at threshold 2, as
// the server's own tests set it up), listening on a port the client calls over HTTP. Awaited it is one page;
// iterated it follows nextCursor, so a request asked while it runs neither repeats nor pushes one out.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Hex } from 'viem';
import { anvilAvailable } from '../../server/test/support/anvil.ts';
import {
  type AwaitingSignatures,
  boundedWithWaitingWithdrawals,
  owners,
} from '../../server/test/support/bounded.ts';
import type { EvmWorld } from '../../server/test/support/evm.ts';
import type { Harness } from '../../server/test/support/harness.ts';
import type { TestUser } from '../../server/test/support/http.ts';
import { type FetchLike, ManagementClient, type OwnersRequest } from '../src/index.ts';

const probe = await anvilAvailable();
const LIST = '/api/v1/wallet/treasury/signatures';

describe('ManagementClient.treasuryRequests on a bounded treasury', {
  skip: probe.available ? false : probe.skip,
}, () => {
  let world: EvmWorld;
  let h: Harness;
  let owner: TestUser;
  let mgmt: ManagementClient;
  /** The query of every list request the client sent, in order. */
  const sent: URLSearchParams[] = [];
  const asked: AwaitingSignatures[] = [];

  let ask: (amount: string, to: string) => Promise<AwaitingSignatures>;

  before(async () => {
    const started = await boundedWithWaitingWithdrawals('sqlite', 'sdk_treasury_requests');
    ({ world, h, owner, ask } = started);
    asked.push(...started.asked);
    const baseUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const counting: FetchLike = (url, init) => {
      const { pathname, searchParams } = new URL(url);
      if (pathname === LIST) sent.push(searchParams);
      return globalThis.fetch(url, init);
    };
    mgmt = new ManagementClient({ baseUrl, token: owner.token, fetch: counting, maxRetries: 0 });
  });
  after(async () => {
    await h?.close();
    await world?.anvil.stop();
  });

  test('awaited: one page, newest first, typed; its nextCursor names the rest', async () => {
    const first = await mgmt.treasuryRequests({ limit: 2 });
    assert.equal(first.total, 3);
    assert.deepEqual(
      first.items.map((r) => r.id),
      [asked[2]!.id, asked[1]!.id],
    );
    const newest: OwnersRequest = first.items[0]!;
    assert.equal(newest.kind, 'transfer');
    assert.equal(newest.status, 'awaiting_signatures');
    assert.equal(newest.amount, '80.000000');
    assert.equal(newest.signaturesNeeded, 2);
    assert.deepEqual(newest.signRequest, asked[2]!.signRequest);
    assert.equal(sent.at(-1)?.toString(), 'limit=2', 'no cursor, no page on the first request');
    assert.ok(first.nextCursor !== null);
    const rest = await mgmt.treasuryRequests({ limit: 2, cursor: first.nextCursor });
    assert.deepEqual(
      rest.items.map((r) => r.id),
      [asked[0]!.id],
    );
    assert.equal(rest.nextCursor, null, 'the last page');
  });

  test('iterated: every request by cursor; one asked meanwhile neither repeats nor pushes one out', async () => {
    sent.length = 0;
    const seen: string[] = [];
    for await (const request of mgmt.treasuryRequests({ limit: 1 })) {
      seen.push(request.id);
      // Newer than all of them: a page by number would now repeat the one just seen.
      if (seen.length === 1) asked.push(await ask('90', 'd4'));
    }
    assert.deepEqual(seen, [asked[2]!.id, asked[1]!.id, asked[0]!.id]);
    assert.ok(
      sent.slice(1).every((query) => query.has('cursor') && !query.has('page')),
      'each later page asked after the cursor of the one before',
    );
    assert.equal((await mgmt.treasuryRequests({ limit: 1 })).items[0]?.id, asked[3]!.id);
  });

  test('status: what the owners signed at their threshold leaves awaiting_signatures', async () => {
    const target = asked[1]!;
    const sign = (who: number) => owners[who]!.signTypedData(target.signRequest.typedData) as Promise<Hex>;
    assert.equal((await mgmt.treasurySignature(target.id, await sign(0))).signaturesNeeded, 1);
    assert.equal((await mgmt.treasurySignature(target.id, await sign(2))).status, 'submitted');
    const submitted = await mgmt.treasuryRequests({ status: 'submitted' });
    assert.deepEqual(
      submitted.items.map((r) => [r.id, r.signedBy.length]),
      [[target.id, 2]],
    );
    const waiting: OwnersRequest[] = [];
    for await (const request of mgmt.treasuryRequests({ status: 'awaiting_signatures', limit: 2 }))
      waiting.push(request);
    assert.deepEqual(
      waiting.map((r) => r.id),
      [asked[3]!.id, asked[2]!.id, asked[0]!.id],
    );
    assert.ok(waiting.every((r) => r.status === 'awaiting_signatures'));
  });
});

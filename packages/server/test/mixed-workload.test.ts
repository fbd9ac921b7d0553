// The mixed workload that deadlocked on PostgreSQL (issue 11: 16 % of requests answered 500): 30 workers
// paying between three agent wallets (half internal, half external) while the owner funds and withdraws.
// No request may answer 500; a conflict that persists after the writer's re-runs is a 503 (nothing written);
// every balance the service reports adds up, and verify-ledger running beside the writes never reports a false
// break. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyLedger } from '../src/ledger/verify.ts';
import { addAgentWallet, agentWithKey, createKey, EXTERNAL, tool } from './support/agent.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';

const WORKERS = Number(process.env.MIXED_WORKERS ?? 30);
const OPS_PER_WORKER = Number(process.env.MIXED_OPS ?? 12);

for (const target of await storeTargets()) {
  describe(`mixed payments and fund/withdraw (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'mixed_workload');
    });
    after(() => h.close());

    test(`${WORKERS} workers × ${OPS_PER_WORKER}: no 500, the ledger verifies`, async () => {
      const first = await agentWithKey(h, { master: '100000', fund: '1000' });
      const others = [await addAgentWallet(first.user, '1000'), await addAgentWallet(first.user, '1000')];
      const wallets = [{ id: first.walletId, address: first.address, key: first.key }];
      for (const w of others) wallets.push({ ...w, key: (await createKey(first.user, w.id)).key });
      const statuses = new Map<number, number>();
      const worker = async (n: number) => {
        for (let i = 0; i < OPS_PER_WORKER; i += 1) {
          const from = wallets[(n + i) % 3]!;
          const to = wallets[(n + i + 1) % 3]!;
          const kind = (n + i) % 4;
          const reply =
            kind === 0
              ? await first.user.api.post(`/api/v1/agent-wallets/${from.id}/fund`, { amount: '0.5' })
              : kind === 1
                ? await first.user.api.post(`/api/v1/agent-wallets/${from.id}/withdraw`, { amount: '0.25' })
                : await tool(h, from.key, 'send_payment', {
                    toAddress: kind === 2 ? to.address : EXTERNAL,
                    amount: '0.1',
                  });
          statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
          assert.notEqual(reply.status, 500, reply.raw);
        }
      };
      // verify-ledger runs beside the writes the whole time: a consistent snapshot never reports a false break.
      let writing = true;
      let verifications = 0;
      const verifier = async () => {
        while (writing) {
          const report = await verifyLedger(h.services.store);
          assert.deepEqual(report.problems, [], 'verify-ledger on a live database');
          verifications += 1;
          // SQLite answers synchronously: give the writers' turns of the event loop a chance in between.
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };
      const verifying = verifier();
      await Promise.all(Array.from({ length: WORKERS }, (_, n) => worker(n))).finally(() => {
        writing = false;
      });
      await verifying;
      assert.ok(verifications >= 2, `verify-ledger ran ${verifications} times during the writes`);
      const summary = JSON.stringify(Object.fromEntries(statuses));
      assert.ok(
        [...statuses.keys()].every((s) => s === 200 || s === 503),
        summary,
      );
      assert.ok((statuses.get(200) ?? 0) >= WORKERS * OPS_PER_WORKER * 0.9, `mostly answered: ${summary}`);
      assert.deepEqual((await verifyLedger(h.services.store)).problems, []);
    });
  });
}

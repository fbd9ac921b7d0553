// An approval that pays a wallet of this service locks that wallet with the payer in the writer's one ordered
// statement (deadlock-free by construction, like every batch command), instead of updating the recipient's
// account behind a lock taken only on the payer. Shown on PostgreSQL, where row locks are visible: while
// another session holds the recipient's wallet row (FOR NO KEY UPDATE: the writer's lock conflicts with it, a
// foreign-key check does not), the approval waits for it; once released, it completes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { agentWithKey, decisionUrl, tool, toolOk } from './support/agent.ts';
import { assertLedgerOk } from './support/foundation.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { POSTGRES_URL } from './support/services.ts';

const WAIT_MS = 400;

for (const target of await storeTargets()) {
  if (target.name !== 'postgres') continue; // SQLite has one writer and no row locks to observe
  describe('approval locks its internal recipient (postgres)', { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'approval_locks');
    });
    after(() => h.close());

    test('an approval waits for the recipient wallet’s row lock, then credits it', async () => {
      const payer = await agentWithKey(h);
      const payee = await agentWithKey(h, { fund: '0' });
      const held = await tool(h, payer.key, 'request_approval', { toAddress: payee.address, amount: '3' });
      const txId = toolOk(held, 'request_approval').txId;
      const other = new pg.Client({
        connectionString: POSTGRES_URL,
        options: `-c search_path=${h.postgresSchema}`,
      });
      await other.connect();
      try {
        await other.query('begin');
        await other.query('select id from wallets where id = $1 for no key update', [payee.walletId]);
        let settled = false;
        const approval = payer.user.api.post(decisionUrl(payer.walletId, txId, 'approve')).finally(() => {
          settled = true;
        });
        await new Promise((resolve) => setTimeout(resolve, WAIT_MS));
        assert.equal(settled, false, 'the approval did not wait for the recipient wallet’s lock');
        await other.query('commit');
        const approved = await approval;
        assert.equal(approved.status, 200, approved.raw);
        assert.equal(approved.body.data.status, 'completed');
        assert.equal(approved.body.data.rail, 'internal');
      } finally {
        await other.end();
      }
      await assertLedgerOk(h);
    });
  });
}

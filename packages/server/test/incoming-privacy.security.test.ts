// Outside finding 14: an internal payment's record on the recipient's wallet must not name the payer's API key
// or user when the payer is another customer — not in the REST history, the transaction's audit trail or the
// tool history. The recipient sees `initiatedBy: "external"`; the payer's own record keeps its key. Records
// written before the fix are rewritten by migration 0012.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import { up as rewriteLegacyInitiators } from '../src/store/migrations/0012_private_incoming_initiator.ts';
import { type Agent, addAgentWallet, agentWithKey, decisionUrl, tool, toolOk } from './support/agent.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';

const historyUrl = (walletId: string) => `/api/v1/agent-wallets/${walletId}/transactions?limit=100`;

/** The payer's ids that must not reach the recipient. */
function payerIds(payer: Agent): string[] {
  return [payer.keyId, payer.user.id, payer.walletId, payer.key];
}

for (const target of await storeTargets()) {
  describe(`an internal payment's recipient does not learn the payer's ids (${target.name})`, {
    skip: target.skip,
  }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'incoming_privacy');
    });
    after(() => h.close());

    /** Everything the recipient can read about its incoming record, over REST and the tool. */
    async function recipientViews(payee: Agent, payer: Agent) {
      const list = await payee.user.api.get(historyUrl(payee.walletId));
      assert.equal(list.status, 200, list.raw);
      const incoming = list.body.data.transactions.find((t: { type: string }) => t.type === 'incoming');
      assert.ok(incoming, list.raw);
      const detail = await payee.user.api.get(
        `/api/v1/agent-wallets/${payee.walletId}/transactions/${incoming.id}`,
      );
      assert.equal(detail.status, 200, detail.raw);
      const history = await tool(h, payee.key, 'get_tx_history', { limit: 100 });
      toolOk(history, 'get_tx_history');
      for (const reply of [list, detail, history]) {
        for (const id of payerIds(payer)) assert.ok(!reply.raw.includes(id), `${id} in ${reply.raw}`);
      }
      return { incoming, detail: detail.body.data };
    }

    test("A's agent pays B's address: B's history, audit trail and tool history show only \"external\"", async () => {
      const payer = await agentWithKey(h);
      const payee = await agentWithKey(h, { fund: '0' });
      const paid = toolOk(
        await tool(h, payer.key, 'send_payment', { toAddress: payee.address, amount: '3', memo: 'hi' }),
        'send_payment',
      );
      assert.equal(paid.status, 'completed');
      const { incoming, detail } = await recipientViews(payee, payer);
      assert.equal(incoming.initiatedBy, 'external');
      assert.equal(incoming.rail, 'internal');
      assert.equal(incoming.memo, 'hi', 'the memo is the payer’s message to the recipient');
      assert.deepEqual(
        detail.events.map((e: { actor: string }) => e.actor),
        ['external'],
      );
      // The payer's own record still names the key that paid.
      const own = await payer.user.api.get(
        `/api/v1/agent-wallets/${payer.walletId}/transactions/${paid.txId}`,
      );
      assert.equal(own.body.data.initiatedBy, `key:${payer.keyId}`);
    });

    test("a payment A's owner approved: B's record names neither A's key nor A's user", async () => {
      const payer = await agentWithKey(h);
      const payee = await agentWithKey(h, { fund: '0' });
      const held = toolOk(
        await tool(h, payer.key, 'request_approval', { toAddress: payee.address, amount: '2' }),
        'request_approval',
      );
      const approved = await payer.user.api.post(decisionUrl(payer.walletId, held.txId, 'approve'));
      assert.equal(approved.body.data.status, 'completed', approved.raw);
      const { incoming, detail } = await recipientViews(payee, payer);
      assert.equal(incoming.initiatedBy, 'external');
      assert.ok(detail.events.every((e: { actor: string }) => e.actor === 'external'));
    });

    test('between two wallets of one user the incoming record keeps the key that paid', async () => {
      const agent = await agentWithKey(h);
      const sibling = await addAgentWallet(agent.user);
      toolOk(
        await tool(h, agent.key, 'send_payment', { toAddress: sibling.address, amount: '1' }),
        'send_payment',
      );
      const list = await agent.user.api.get(historyUrl(sibling.id));
      const [incoming] = list.body.data.transactions;
      assert.equal(incoming.type, 'incoming');
      assert.equal(incoming.initiatedBy, `key:${agent.keyId}`);
    });

    test('migration 0012 rewrites records written before the fix, and only those', async () => {
      const db = h.services.store.db;
      const payer = await agentWithKey(h);
      const payee = await agentWithKey(h, { fund: '0' });
      const sibling = await addAgentWallet(payer.user);
      const paid = toolOk(
        await tool(h, payer.key, 'send_payment', { toAddress: payee.address, amount: '1' }),
        'send_payment',
      );
      toolOk(
        await tool(h, payer.key, 'send_payment', { toAddress: sibling.address, amount: '1' }),
        'send_payment',
      );
      const legacy = `key:${payer.keyId}`;
      // What the release before the fix stored on the recipient's side.
      const foreign = await db
        .selectFrom('transactions')
        .select('id')
        .where('wallet_id', '=', payee.walletId)
        .where('type', '=', 'incoming')
        .executeTakeFirstOrThrow();
      await db
        .updateTable('transactions')
        .set({ initiated_by: legacy })
        .where('id', '=', foreign.id)
        .execute();
      await db
        .updateTable('transaction_events')
        .set({ actor: legacy })
        .where('transaction_id', '=', foreign.id)
        .execute();

      await rewriteLegacyInitiators(db as unknown as Kysely<unknown>);

      const initiator = async (walletId: string, type: 'incoming' | 'payment', id?: string) => {
        let query = db
          .selectFrom('transactions')
          .select(['id', 'initiated_by'])
          .where('wallet_id', '=', walletId)
          .where('type', '=', type);
        if (id !== undefined) query = query.where('id', '=', id);
        const row = await query.executeTakeFirstOrThrow();
        const events = await db
          .selectFrom('transaction_events')
          .select('actor')
          .where('transaction_id', '=', row.id)
          .execute();
        return { initiatedBy: row.initiated_by, actors: events.map((e) => e.actor) };
      };
      assert.deepEqual(await initiator(payee.walletId, 'incoming'), {
        initiatedBy: 'external',
        actors: ['external'],
      });
      assert.deepEqual(await initiator(sibling.id, 'incoming'), { initiatedBy: legacy, actors: [legacy] });
      assert.deepEqual(await initiator(payer.walletId, 'payment', paid.txId), {
        initiatedBy: legacy,
        actors: [legacy],
      });
      await recipientViews(payee, payer);
    });
  });
}

// check_balance is answered from memory on SQLite while the database cannot have changed (services/
// balance-view.ts). These tests hold it to "exactly what the query would return": after this process's own
// writes, while the writer holds a transaction open, and after a commit by another connection (a CLI command,
// another process), which the cache learns of through SQLite's data_version.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { decimalToMicros, formatMicros } from '../src/domain/money.ts';
import { agentWithKey, EXTERNAL, tool, toolOk } from './support/agent.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';

for (const target of await storeTargets()) {
  describe(`check_balance's exact cache (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'balance_cache');
    });
    after(() => h.close());

    const balanceOf = async (key: string) => toolOk(await tool(h, key, 'check_balance'), 'check_balance');

    test('every read after a payment, a fund or a freeze shows it', async () => {
      const agent = await agentWithKey(h, { fund: '10' });
      let expectedMicros = 10_000_000n;
      for (let i = 1; i <= 12; i += 1) {
        assert.equal((await balanceOf(agent.key)).balance, formatMicros(expectedMicros));
        const amount = `0.${String(i).padStart(6, '0')}`;
        toolOk(await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount }), 'send_payment');
        expectedMicros -= BigInt(i);
        assert.equal((await balanceOf(agent.key)).balance, formatMicros(expectedMicros));
      }
      await agent.user.api.post(`/api/v1/agent-wallets/${agent.walletId}/fund`, { amount: '1' });
      assert.equal((await balanceOf(agent.key)).balance, formatMicros(expectedMicros + 1_000_000n));
      await agent.user.api.post(`/api/v1/agent-wallets/${agent.walletId}/freeze`);
      assert.equal((await balanceOf(agent.key)).frozen, true);
    });

    test('reads racing payments end on the ledger’s balance, and none shows more than was there', async () => {
      const agent = await agentWithKey(h, { fund: '5' });
      const seen: bigint[] = [];
      await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          if (i % 2 === 0) {
            await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '0.1' });
          } else {
            seen.push(decimalToMicros((await balanceOf(agent.key)).balance));
          }
        }),
      );
      assert.ok(seen.every((value) => value <= 5_000_000n && value >= 3_000_000n));
      assert.equal((await balanceOf(agent.key)).balance, '3.000000');
    });

    test('concurrent reads of many wallets (one query on PostgreSQL) each answer their own wallet', async () => {
      const agents = await Promise.all(
        Array.from({ length: 12 }, (_, i) => agentWithKey(h, { fund: `${i + 1}` })),
      );
      // While the writer holds a transaction SQLite reads go through the same batched query.
      const reads = () => Promise.all(agents.map((agent) => balanceOf(agent.key)));
      const checks = async (views: Awaited<ReturnType<typeof reads>>) =>
        views.forEach((view, i) => {
          assert.equal(view.walletId, agents[i]!.walletId);
          assert.equal(view.balance, formatMicros(BigInt(i + 1) * 1_000_000n));
        });
      await checks(await reads());
      await Promise.all([reads().then(checks), h.services.writer.run(async () => undefined)]);
    });

    test('one batch of reads mixing remembered and changed wallets answers each with its own balance', async () => {
      const agents = await Promise.all(Array.from({ length: 8 }, () => agentWithKey(h, { fund: '1' })));
      const reads = () => Promise.all(agents.map((agent) => balanceOf(agent.key)));
      await reads(); // remembered now
      for (const agent of agents.filter((_, i) => i % 2 === 0)) {
        await agent.user.api.post(`/api/v1/agent-wallets/${agent.walletId}/fund`, { amount: '2' });
      }
      const views = await reads();
      views.forEach((view, i) => {
        assert.equal(view.walletId, agents[i]!.walletId);
        assert.equal(view.balance, i % 2 === 0 ? '3.000000' : '1.000000');
      });
    });

    test('while the writer holds a transaction open nothing is served from memory', async () => {
      await h.services.writer.run(async () => {
        assert.equal(h.services.store.committedVersion(), null);
      });
      if (target.name === 'sqlite') assert.notEqual(h.services.store.committedVersion(), null);
      else assert.equal(h.services.store.committedVersion(), null); // other instances write
    });

    // SQLite only: PostgreSQL reads are never cached, so there is nothing to hold to this.
    const sqliteOnly = target.name === 'sqlite' ? test : () => undefined;
    sqliteOnly('a commit by another connection to the file is seen by the next read', async () => {
      const agent = await agentWithKey(h, { fund: '10' });
      assert.equal((await balanceOf(agent.key)).frozen, false);
      assert.equal((await balanceOf(agent.key)).frozen, false); // now from memory
      const other = new SqliteDatabase(join(h.dataDir, 'agent-wallet.sqlite'));
      try {
        other.prepare('update wallets set frozen_at_ms = ? where id = ?').run(Date.now(), agent.walletId);
        assert.equal((await balanceOf(agent.key)).frozen, true);
        other.prepare('update wallets set frozen_at_ms = null where id = ?').run(agent.walletId);
        assert.equal((await balanceOf(agent.key)).frozen, false);
      } finally {
        other.close();
      }
    });
  });
}

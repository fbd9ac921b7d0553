// Migration 0024 (metered payments) on both stores, down and up again on a database holding transactions: every
// row, index and foreign key survives (SQLite rebuilds the transactions table to change its amount check), the
// new columns come and go, and the amount check afterwards admits 0 only for a metered payment settled for
// nothing (an authorized maximum beside it). Going down refuses while such a payment exists.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { migrateTo, migrateToLatest } from '../src/store/migrate.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { fundedUser } from './support/http.ts';

for (const target of await storeTargets()) {
  describe(`metered-payments migration on ${target.name}`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      // Kysely's migration lock is one advisory lock for the whole database: another suite migrating its own
      // schema makes this one wait, longer than the 5 s statement timeout on a loaded runner.
      h = await startHarness(target.name, 'metered_migration', { env: { DB_STATEMENT_TIMEOUT_MS: '60000' } });
    });
    after(() => h?.close());

    const schemaShape = async () => {
      const db = h.services.store.db;
      if (h.services.store.dialect === 'sqlite') {
        const rows = await sql<{ type: string; name: string; sql: string | null }>`
          select type, name, sql from sqlite_master where tbl_name = 'transactions' order by type, name`.execute(
          db,
        );
        return rows.rows.filter((r) => r.type === 'index').map((r) => `${r.name}: ${r.sql}`);
      }
      const rows = await sql<{ indexname: string; indexdef: string }>`
        select indexname, indexdef from pg_indexes where tablename = 'transactions' and schemaname = ${h.postgresSchema!}
        order by indexname`.execute(db);
      return rows.rows.map((r) => `${r.indexname}: ${r.indexdef}`);
    };
    /** `authorized` undefined: the column is not named (before 0024 it does not exist). */
    const zeroAmount = (id: string, authorized?: bigint | null) =>
      (authorized === undefined
        ? sql`update transactions set amount_micros = 0 where id = ${id}`
        : sql`update transactions set amount_micros = 0, authorized_micros = ${authorized} where id = ${id}`
      ).execute(h.services.store.db);

    test('down to 0023 and up again keeps every row, index and reference; 0 only beside a maximum', async () => {
      const { user, walletId } = await fundedUser(h.app, '5');
      const funded = await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '1.25' });
      assert.equal(funded.status, 200, funded.raw);
      const db = h.services.store.db;
      const before = await db.selectFrom('transactions').selectAll().orderBy('id').execute();
      const events = await db.selectFrom('transaction_events').select('id').execute();
      const indexes = await schemaShape();
      assert.ok(
        before.length >= 1 && events.length >= 1,
        `${before.length} transactions, ${events.length} events`,
      );

      await migrateTo(db, '0023_audit_chain', h.postgresSchema);
      const down = await db.selectFrom('transactions').selectAll().orderBy('id').execute();
      assert.equal('authorized_micros' in down[0]!, false, 'the column is gone');
      await assert.rejects(zeroAmount(before[0]!.id), /check|constraint/i, 'before 0024 no amount is 0');

      await migrateToLatest(db, h.postgresSchema);
      assert.deepEqual(await db.selectFrom('transactions').selectAll().orderBy('id').execute(), before);
      assert.deepEqual(await schemaShape(), indexes, 'the same indexes');
      assert.equal((await db.selectFrom('transaction_events').select('id').execute()).length, events.length);
      if (h.services.store.dialect === 'sqlite') {
        const broken = await sql`pragma foreign_key_check`.execute(db);
        assert.deepEqual(broken.rows, []);
        await assert.rejects(
          sql`insert into transaction_events (id, transaction_id, status, actor, note, created_at_ms)
            values ('evt_orphan', 'tx_none', 'completed', 'test', null, 1)`.execute(db),
          /FOREIGN KEY/i,
          'references to transactions are still enforced',
        );
      }
      await assert.rejects(
        zeroAmount(before[0]!.id, null),
        /check|constraint/i,
        'a plain payment is never 0',
      );
      await zeroAmount(before[0]!.id, 1_250_000n);
      await assert.rejects(migrateTo(db, '0023_audit_chain', h.postgresSchema), /settled for nothing/);
      // Back as it was, so the rest of the suite's ledger stays whole.
      await sql`update transactions set amount_micros = ${before[0]!.amount_micros}, authorized_micros = null
        where id = ${before[0]!.id}`.execute(db);
    });
  });
}

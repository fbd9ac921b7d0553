// Migration 0025 on both stores, down and up over real rows: treasury_delegations appears and goes, and
// chain_outbox.wallet_id becomes optional (a refill belongs to no wallet) — on SQLite by rebuilding the table, so
// its rows, its unique nonce and its unique authorization nonce must survive the rebuild both ways.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { migrateTo, migrateToLatest } from '../src/store/migrate.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { fundedUser } from './support/http.ts';

const outboxRow = (id: string, walletId: string | null, nonce: bigint, kind = 'payout') => ({
  id,
  kind: kind as 'payout',
  transaction_id: null,
  wallet_id: walletId,
  from_address: `0x${'aa'.repeat(20)}`,
  to_address: `0x${'bb'.repeat(20)}`,
  amount_micros: 1_500_000n,
  status: 'completed' as const,
  nonce,
  tx_hashes_json: '["0x01"]',
  authorization_nonce: `0x${nonce.toString(16).padStart(64, '0')}`,
  attempts: 1n,
  created_at_ms: 1n,
  updated_at_ms: 2n,
});

for (const target of await storeTargets()) {
  describe(`bounded-treasury migration on ${target.name}`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'bounded_migration', { env: { DB_STATEMENT_TIMEOUT_MS: '60000' } });
    });
    after(() => h?.close());

    test('0025 down and up keeps the outbox, makes wallet_id optional, and adds treasury_delegations', async () => {
      const db = h.services.store.db;
      const { walletId } = await fundedUser(h.app, '5');
      await migrateTo(db, '0023_audit_chain', h.postgresSchema);
      await db
        .insertInto('chain_outbox')
        .values(outboxRow('obx_before', walletId, 7n))
        .execute();
      await assert.rejects(
        db
          .insertInto('chain_outbox')
          .values(outboxRow('obx_nowallet', null, 8n))
          .execute(),
        'before 0025 a row needs a wallet',
      );
      await assert.rejects(sql`select count(*) from treasury_delegations`.execute(db));
      await assert.rejects(sql`select count(*) from treasury_signature_requests`.execute(db));
      await migrateToLatest(db, h.postgresSchema);
      const kept = await db
        .selectFrom('chain_outbox')
        .selectAll()
        .where('id', '=', 'obx_before')
        .executeTakeFirstOrThrow();
      assert.equal(kept.wallet_id, walletId);
      assert.equal(kept.nonce, 7n);
      assert.equal(kept.amount_micros, 1_500_000n);
      assert.equal(kept.tx_hashes_json, '["0x01"]');
      await db
        .insertInto('chain_outbox')
        .values(outboxRow('obx_refill', null, 8n, 'refill'))
        .execute();
      await assert.rejects(
        db
          .insertInto('chain_outbox')
          .values(outboxRow('obx_dupe', walletId, 7n))
          .execute(),
        'the nonce stays unique after the rebuild',
      );
      await db
        .insertInto('treasury_delegations')
        .values({
          id: 'tdl_1',
          chain_id: 31337n,
          account: `0x${'cc'.repeat(20)}`,
          delegate: `0x${'aa'.repeat(20)}`,
          delegation_hash: `0x${'dd'.repeat(32)}`,
          delegation_json: '{}',
          allowance_micros: 100_000_000n,
          period_seconds: 86_400n,
          start_seconds: 1n,
          status: 'active',
          created_at_ms: 1n,
          revoked_at_ms: null,
        })
        .execute();
      await sql`select count(*) from treasury_signature_requests`.execute(db);
      // Down again: the refill (no wallet) goes, the payout stays, and a wallet is required once more.
      await migrateTo(db, '0023_audit_chain', h.postgresSchema);
      const ids = (await db.selectFrom('chain_outbox').select('id').execute()).map((r) => r.id);
      assert.deepEqual(ids, ['obx_before']);
      await assert.rejects(
        db
          .insertInto('chain_outbox')
          .values(outboxRow('obx_nowallet', null, 9n))
          .execute(),
      );
      await assert.rejects(sql`select count(*) from treasury_delegations`.execute(db));
      await assert.rejects(sql`select count(*) from treasury_signature_requests`.execute(db));
      await migrateToLatest(db, h.postgresSchema);
      assert.equal((await db.selectFrom('chain_outbox').select('id').execute()).length, 1);
    });
  });
}

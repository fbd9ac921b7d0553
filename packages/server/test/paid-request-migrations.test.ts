// Migrations 0019 and 0020 on a database that holds an x402 payment of the release before them: it becomes a paid
// request of the `x402-exact` method, its receipt moves to the transaction, and history shows protocol and scheme.
// Taken down to 0018's shape and up again on both stores, so up and down are both exercised on real rows.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { transactionRow } from '../src/services/wallets/transactions.ts';
import { migrateTo, migrateToLatest } from '../src/store/migrate.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { fundedUser } from './support/http.ts';

for (const target of await storeTargets()) {
  describe(`paid-request migrations on ${target.name}`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      // Kysely's migration lock is one advisory lock for the whole database: while another suite's server migrates
      // its own schema, this file's migrations wait for it — longer than the 5 s statement timeout on a loaded
      // 2-core runner.
      h = await startHarness(target.name, 'paid_migrations', { env: { DB_STATEMENT_TIMEOUT_MS: '60000' } });
    });
    after(() => h?.close());

    test('an x402 payment written before 0019 keeps everything and shows as x402 exact with its receipt', async () => {
      const { user, walletId } = await fundedUser(h.app, '5');
      const funded = await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '1' });
      assert.equal(funded.status, 200, funded.raw);
      const db = h.services.store.db;
      const nowMs = h.clock.nowMs();
      // Back to the release before: its x402 rows have no method, and the receipt (0019) never existed there.
      await migrateTo(db, '0018_retention', h.postgresSchema);
      const row = transactionRow({
        walletId,
        userId: user.id,
        type: 'payment',
        status: 'completed',
        amountMicros: 1_500_000n,
        toAddress: `0x${'5e'.repeat(20)}`,
        counterpartyWalletId: null,
        memo: 'an old report',
        reason: null,
        rail: 'evm',
        rejectionReason: null,
        violations: null,
        initiatedBy: 'key:old',
        idempotencyKey: null,
        expiresAtMs: null,
        relatedTransactionId: null,
        nowMs,
        resource: 'https://api.example.com/report',
      });
      const { payment_method: _m, receipt: _r, authorized_micros: _a, ...oldRow } = row;
      await db
        .insertInto('transactions')
        .values(oldRow as never)
        .execute();
      await sql`insert into x402_payments (transaction_id, wallet_id, state, x402_version, requirement_json,
        resource_json, pay_to, amount_micros, nonce, valid_before_s, settle_tx_hash, created_at_ms, updated_at_ms)
        values (${row.id}, ${walletId}, 'settled', 2, '{"scheme":"exact"}', null, ${row.to_address}, 1500000,
        ${`0x${'ab'.repeat(32)}`}, 1, null, ${nowMs}, ${nowMs})`.execute(db);
      // 0019 as it was released (a receipt column on x402_payments), then the rest of the way.
      await migrateTo(db, '0019_payment_methods', h.postgresSchema);
      await sql`update x402_payments set receipt = 'eyJzdWNjZXNzIjp0cnVlfQ' where transaction_id = ${row.id}`.execute(
        db,
      );
      await migrateToLatest(db, h.postgresSchema);
      const payment = await db
        .selectFrom('x402_payments')
        .selectAll()
        .where('transaction_id', '=', row.id)
        .executeTakeFirstOrThrow();
      assert.equal(payment.method, 'x402-exact');
      assert.equal('receipt' in payment, false, 'the receipt moved to the transaction');
      const shown = await user.api.get(`/api/v1/agent-wallets/${walletId}/transactions/${row.id}`);
      assert.equal(shown.status, 200, shown.raw);
      assert.equal(shown.body.data.type, 'x402');
      assert.equal(shown.body.data.protocol, 'x402');
      assert.equal(shown.body.data.scheme, 'exact');
      assert.equal(shown.body.data.amount, '1.500000');
      assert.equal(shown.body.data.receipt, 'eyJzdWNjZXNzIjp0cnVlfQ');
      assert.equal(shown.body.data.memo, 'an old report');
      // A transaction that is not a paid request shows none of those fields.
      const list = await user.api.get(`/api/v1/agent-wallets/${walletId}/transactions`);
      const fund = list.body.data.transactions.find((t: { type: string }) => t.type === 'fund');
      assert.equal('protocol' in fund, false);
    });
  });
}

// Migration 0026 (x402 extensions kept with a payment) on both stores, down and up again over real rows: the
// column goes and comes back, every other field of the payment is untouched, and a payment stored without it (as
// every earlier one was) is still read and signed as before — its payload carries no extensions — while one stored
// with a payment-identifier declaration answers it with the payment's id.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { methodOf } from '../src/payments/registry.ts';
import { transactionRow } from '../src/services/wallets/transactions.ts';
import { storedOfferOf } from '../src/services/x402/sign.ts';
import { migrateTo, migrateToLatest } from '../src/store/migrate.ts';
import type { X402PaymentsTable } from '../src/store/schema.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { fundedUser } from './support/http.ts';
import { paymentIdentifierDeclared } from './support/x402-payment-identifier.ts';

const REQUIREMENT = {
  scheme: 'exact',
  network: 'eip155:31337',
  amount: '1500000',
  asset: `0x${'00'.repeat(19)}01`,
  payTo: `0x${'5e'.repeat(20)}`,
  maxTimeoutSeconds: 60,
  extra: { name: 'USD Coin', version: '2' },
};

/** The payload a stored payment's method sends for it (a made-up signature: only its shape is looked at). */
function payloadOf(row: X402PaymentsTable): Record<string, unknown> {
  const fields = {
    from: `0x${'71'.repeat(20)}`,
    to: row.pay_to,
    value: row.amount_micros,
    validAfter: 0n,
    validBefore: row.valid_before_s!,
    nonce: row.nonce!,
    signature: `0x${'11'.repeat(65)}`,
  };
  return methodOf(row.method).credential(storedOfferOf(row), fields).payload;
}

for (const target of await storeTargets()) {
  describe(`x402-extensions migration on ${target.name}`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      // Kysely's migration lock is one advisory lock for the whole database: another suite migrating its own
      // schema makes this one wait, longer than the 5 s statement timeout on a loaded runner.
      h = await startHarness(target.name, 'x402_ext_migration', {
        env: { DB_STATEMENT_TIMEOUT_MS: '60000' },
      });
    });
    after(() => h?.close());

    const storePayment = async (extensionsJson: string | null, nonce: string) => {
      const { user, walletId } = await fundedUser(h.app, '5');
      const db = h.services.store.db;
      const nowMs = h.clock.nowMs();
      const tx = transactionRow({
        walletId,
        userId: user.id,
        type: 'payment',
        status: 'processing',
        amountMicros: 1_500_000n,
        toAddress: REQUIREMENT.payTo,
        counterpartyWalletId: null,
        memo: null,
        reason: null,
        rail: 'evm',
        rejectionReason: null,
        violations: null,
        initiatedBy: 'key:test',
        idempotencyKey: null,
        expiresAtMs: null,
        relatedTransactionId: null,
        nowMs,
        resource: 'https://api.example.com/report',
        paymentMethod: 'x402-exact',
      });
      await db.insertInto('transactions').values(tx).execute();
      await db
        .insertInto('x402_payments')
        .values({
          transaction_id: tx.id,
          wallet_id: walletId,
          state: 'signed',
          x402_version: 2n,
          method: 'x402-exact',
          authorization: 'eip3009',
          settled_micros: null,
          requirement_json: JSON.stringify(REQUIREMENT),
          resource_json: JSON.stringify({ url: 'https://api.example.com/report' }),
          extensions_json: extensionsJson,
          pay_to: REQUIREMENT.payTo,
          amount_micros: 1_500_000n,
          nonce,
          valid_before_s: BigInt(Math.floor(nowMs / 1000) + 60),
          settle_tx_hash: null,
          created_at_ms: BigInt(nowMs),
          updated_at_ms: BigInt(nowMs),
        })
        .execute();
      return tx.id;
    };
    const paymentRow = (id: string) =>
      h.services.store.db
        .selectFrom('x402_payments')
        .selectAll()
        .where('transaction_id', '=', id)
        .executeTakeFirstOrThrow();

    test('down to 0024 and up again: the declaration is dropped with its column, the rest kept, both rows readable', async () => {
      const declared = await storePayment(
        JSON.stringify(paymentIdentifierDeclared(true)),
        `0x${'ab'.repeat(32)}`,
      );
      const plain = await storePayment(null, `0x${'cd'.repeat(32)}`);
      const withDeclaration = await paymentRow(declared);
      const identified = payloadOf(withDeclaration).extensions as Record<string, { info: { id: string } }>;
      assert.equal(identified['payment-identifier']!.info.id, `pay_${'ab'.repeat(32)}`);
      assert.equal('extensions' in payloadOf(await paymentRow(plain)), false, 'none declared, none sent');
      const { extensions_json: _e, ...rest } = withDeclaration;

      const db = h.services.store.db;
      await migrateTo(db, '0024_metered_payments', h.postgresSchema);
      const down = (await db
        .selectFrom('x402_payments')
        .selectAll()
        .where('transaction_id', '=', declared)
        .executeTakeFirstOrThrow()) as Record<string, unknown>;
      assert.equal('extensions_json' in down, false, 'the column is gone');
      assert.deepEqual(down, rest);

      await migrateToLatest(db, h.postgresSchema);
      // Not paymentRow's query text: PostgreSQL refuses a statement prepared before the column came and went
      // ("cached plan must not change result type"); a release's new process prepares afresh.
      const up = await db
        .selectFrom('x402_payments')
        .selectAll()
        .where('transaction_id', 'in', [declared])
        .executeTakeFirstOrThrow();
      assert.deepEqual(up, { ...rest, extensions_json: null }, 'an earlier release’s row: no declaration');
      const payload = payloadOf(up);
      assert.equal('extensions' in payload, false, 'read and signed as before');
      assert.equal((payload.accepted as { scheme: string }).scheme, 'exact');
    });
  });
}

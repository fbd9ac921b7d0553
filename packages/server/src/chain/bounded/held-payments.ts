// Agents' payments held while the owners sign (bounded mode, contract section 14): the request written with the
// pending payment (services/money/commands/payment.ts) ends it. Signed and confirmed, outbox-finish.ts pays it;
// here the two ways it ends unsigned — the owners decline it, or nobody signs within
// OWNERS_SIGNATURES_MAX_AGE_MS — each a compare-and-set of the request from awaiting_signatures to failed, in the
// same database transaction (under the wallet's lock) that gives the hold back: a request signed at the same
// moment is either submitted (then it is no longer declined nor expired) or failed (then no late signature
// submits it), never both.
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';
import type { RailContext } from '../books.ts';

/** A payment waits this long for the owners' signatures; then it fails and its money goes back. */
export const OWNERS_SIGNATURES_MAX_AGE_MS = 7 * 24 * 60 * 60_000;

/** How many held payments one round expires at most. */
const EXPIRY_ROUND_MAX = 32;

/**
 * The request of a payment held for the owners (awaiting their signatures, or signed and on its way: either way
 * not an approval's to settle) and its wallet; undefined when the payment is not held for them.
 */
export async function heldRequestOf(db: Kysely<Database>, transactionId: string) {
  return db
    .selectFrom('treasury_signature_requests as r')
    .innerJoin('transactions as t', 't.id', 'r.transaction_id')
    .select(['r.id', 'r.status', 'r.amount_micros', 't.wallet_id', 't.status as paymentStatus'])
    .where('r.transaction_id', '=', transactionId)
    .where('t.status', '=', 'pending')
    .executeTakeFirst();
}

type Held = NonNullable<Awaited<ReturnType<typeof heldRequestOf>>>;

/**
 * Ends the request unsigned and gives the hold back with `status`; false when the request was no longer waiting
 * (the owners' signatures reached the threshold first, or it ended already).
 */
export async function releaseUnsigned(
  ctx: RailContext,
  transactionId: string,
  held: Held,
  ending: { status: 'expired' | 'rejected'; note: string },
): Promise<boolean> {
  const nowMs = ctx.clock.nowMs();
  return ctx.writer.run(
    async (trx) => {
      const ended = await trx
        .updateTable('treasury_signature_requests')
        .set({ status: 'failed', updated_at_ms: BigInt(nowMs) })
        .where('id', '=', held.id)
        .where('status', '=', 'awaiting_signatures')
        .executeTakeFirst();
      if (ended.numUpdatedRows !== 1n) return false;
      const payment = { transactionId, walletId: held.wallet_id, amountMicros: held.amount_micros ?? 0n };
      await ctx.books.finishHeldPayment(trx, payment, { kind: 'released', ...ending }, nowMs);
      return true;
    },
    { wallets: [held.wallet_id] },
  );
}

/** Expires the held payments the owners did not sign in time (their hold back, status `expired`); how many. */
export async function expireHeldOnce(ctx: RailContext): Promise<number> {
  const before = BigInt(ctx.clock.nowMs() - OWNERS_SIGNATURES_MAX_AGE_MS);
  const due = await ctx.store.db
    .selectFrom('treasury_signature_requests')
    .select('transaction_id')
    .where('status', '=', 'awaiting_signatures')
    .where('outbox_id', 'is', null)
    .where('transaction_id', 'is not', null)
    .where('created_at_ms', '<', before)
    .limit(EXPIRY_ROUND_MAX)
    .execute();
  let expired = 0;
  for (const { transaction_id } of due) {
    const held = await heldRequestOf(ctx.store.db, transaction_id!);
    if (held === undefined) continue;
    const note = 'the owners did not sign it within 7 days; the amount is back in the wallet';
    if (await releaseUnsigned(ctx, transaction_id!, held, { status: 'expired', note })) expired += 1;
  }
  return expired;
}

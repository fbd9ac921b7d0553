// Outside finding 14: the record of an internal payment on the recipient's wallet named the payer's API key
// (`initiatedBy: "key:key_…"`, or the payer's `user:` id for an approved payment), in the record and in its audit
// trail, although the payer is another customer. New records name only "external" then (payment-batch.ts);
// this rewrites the records written before, so no stored row shows another customer's ids.
import { type Kysely, sql } from 'kysely';

/** An incoming record whose paying wallet belongs to another user. */
const FROM_ANOTHER_USER = sql`
  transactions.type = 'incoming'
  and exists (
    select 1 from wallets payer
    where payer.id = transactions.counterparty_wallet_id and payer.user_id <> transactions.user_id
  )`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    update transaction_events set actor = 'external'
    where (actor like 'key:%' or actor like 'user:%')
      and transaction_id in (select transactions.id from transactions where ${FROM_ANOTHER_USER})`.execute(
    db,
  );
  await sql`update transactions set initiated_by = 'external' where ${FROM_ANOTHER_USER}`.execute(db);
}

/** The payer's ids are not kept anywhere on the recipient's side: nothing to restore. */
export async function down(): Promise<void> {}

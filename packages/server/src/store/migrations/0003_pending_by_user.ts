// The dashboard's approvals badge counts a user's pending payments on every wallet-list poll.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('transactions_user_status_idx')
    .on('transactions')
    .columns(['user_id', 'status'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('transactions_user_status_idx').execute();
}

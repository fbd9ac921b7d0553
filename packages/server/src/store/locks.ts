// Count limits (policies per wallet, keys per wallet, agent wallets per user) are "count, then insert": on
// PostgreSQL two transactions would both count 49 and both insert the 50th. Locking the owning row first
// serialises them, and READ COMMITTED gives the count after the lock a fresh snapshot. A no-op UPDATE takes
// that row lock on PostgreSQL; SQLite's writer already runs one transaction at a time. It rewrites a column no
// foreign key refers to: `set id = id` made SQLite check every table referring to the row for children —
// planned as full scans of accounts, deposits and, for a user, transactions (no index leads with user_id).
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.ts';

export async function lockOwnerRow(
  trx: Kysely<Database>,
  table: 'wallets' | 'users',
  id: string,
): Promise<void> {
  await sql`update ${sql.table(table)} set created_at_ms = created_at_ms where id = ${id}`.execute(trx);
}

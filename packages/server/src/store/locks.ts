// Count limits (policies per wallet, keys per wallet, agent wallets per user) are "count, then insert": on
// PostgreSQL two transactions would both count 49 and both insert the 50th. Locking the owning row first
// serialises them, and READ COMMITTED gives the count after the lock a fresh snapshot. A no-op UPDATE takes
// that row lock on PostgreSQL and is harmless on SQLite, whose writer already runs one transaction at a time.
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.ts';

export async function lockOwnerRow(
  trx: Kysely<Database>,
  table: 'wallets' | 'users',
  id: string,
): Promise<void> {
  await sql`update ${sql.table(table)} set id = id where id = ${id}`.execute(trx);
}

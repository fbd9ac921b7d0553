// One sender per treasury across instances: a lease row in the database, taken when free or expired and
// renewed by its holder each round. The nonce index (chain_outbox.nonce is unique) is the second half of the
// pair: even a holder that lost its lease while paused cannot store a second transaction under a used nonce.
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';

/** Takes or renews the lease; true when `holder` has it until nowMs + ttlMs. */
export async function holdLease(
  db: Kysely<Database>,
  lease: { name: string; holder: string; nowMs: number; ttlMs: number },
): Promise<boolean> {
  const expiresAtMs = BigInt(lease.nowMs + lease.ttlMs);
  const row = await db
    .insertInto('chain_leases')
    .values({ name: lease.name, holder: lease.holder, expires_at_ms: expiresAtMs })
    .onConflict((oc) =>
      oc
        .column('name')
        .doUpdateSet({ holder: lease.holder, expires_at_ms: expiresAtMs })
        .where((eb) =>
          eb.or([
            eb('chain_leases.holder', '=', lease.holder),
            eb('chain_leases.expires_at_ms', '<', BigInt(lease.nowMs)),
          ]),
        ),
    )
    .returning('holder')
    .executeTakeFirst();
  return row?.holder === lease.holder;
}

/** Gives the lease up (a clean shutdown), so another instance takes over without waiting for it to expire. */
export async function releaseLease(db: Kysely<Database>, name: string, holder: string): Promise<void> {
  await db.deleteFrom('chain_leases').where('name', '=', name).where('holder', '=', holder).execute();
}

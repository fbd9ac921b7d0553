// The owner's side of custody (contract section 8): what a session knows about itself (last use, address, user
// agent, when presence was last proven), second factors (TOTP, recovery codes, passkeys), single-use challenges
// (the mfaToken of a login, WebAuthn challenges), the withdrawal address book and the security events a user
// sees. Existing sessions keep working: their presence was proven at login, so stepped_up_at_ms starts at
// created_at_ms.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [column, type] of [
    ['last_used_at_ms', 'bigint'],
    ['ip', 'text'],
    ['user_agent', 'text'],
    ['stepped_up_at_ms', 'bigint'],
  ] as const) {
    await db.schema.alterTable('sessions').addColumn(column, type).execute();
  }
  await sql`update sessions set stepped_up_at_ms = created_at_ms, last_used_at_ms = created_at_ms`.execute(
    db,
  );

  await db.schema
    .createTable('totp_factors')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id'))
    .addColumn('secret', 'text', (c) => c.notNull())
    // Null until the first code confirms it: an unconfirmed secret is no factor.
    .addColumn('confirmed_at_ms', 'bigint')
    // The time step of the last accepted code: a code of that step or earlier is a replay.
    .addColumn('last_time_step', 'bigint')
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('recovery_codes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at_ms', 'bigint')
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('recovery_codes_user_idx').on('recovery_codes').column('user_id').execute();

  await db.schema
    .createTable('passkeys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('credential_id', 'text', (c) => c.notNull().unique())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('sign_count', 'bigint', (c) => c.notNull())
    .addColumn('transports_json', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at_ms', 'bigint')
    .execute();
  await db.schema.createIndex('passkeys_user_idx').on('passkeys').column('user_id').execute();

  // Single-use, short-lived: a login's mfaToken (id = its SHA-256), WebAuthn challenges.
  await db.schema
    .createTable('auth_challenges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('challenge', 'text')
    .addColumn('session_id', 'text')
    .addColumn('failures', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('used_at_ms', 'bigint')
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('auth_challenges_expires_idx')
    .on('auth_challenges')
    .column('expires_at_ms')
    .execute();

  await db.schema
    .createTable('withdrawal_addresses')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('activates_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('withdrawal_addresses_user_address_key', ['user_id', 'address'])
    .execute();

  await db.schema
    .createTable('security_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('detail_json', 'text', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('security_events_user_created_idx')
    .on('security_events')
    .columns(['user_id', 'created_at_ms'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'security_events',
    'withdrawal_addresses',
    'auth_challenges',
    'passkeys',
    'recovery_codes',
    'totp_factors',
  ]) {
    await db.schema.dropTable(table).execute();
  }
  for (const column of ['last_used_at_ms', 'ip', 'user_agent', 'stepped_up_at_ms']) {
    await db.schema.alterTable('sessions').dropColumn(column).execute();
  }
}

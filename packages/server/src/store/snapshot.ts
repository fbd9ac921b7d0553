// A consistent, logical copy of a whole deployment (issue 31): every table's rows read in ONE snapshot — a
// read transaction on SQLite (WAL: writers go on, the reader sees the database as of its first read), a
// REPEATABLE READ, READ ONLY transaction on PostgreSQL — streamed as JSON lines with the secrets the deployment
// needs, and loaded into an empty store of either kind. It is what `backup`/`restore` write and read, and what
// `move` pipes from the embedded store into PostgreSQL. Tables are read by physical position (SQLite's rowid,
// PostgreSQL's ctid) a batch at a time, so memory stays bounded whatever a table's size.
import { type Kysely, sql } from 'kysely';
import { assert } from '../errors.ts';
import type { Dialect } from './db.ts';
import { appliedMigrations, MIGRATION_NAMES, migrateTo, migrateToLatest } from './migrate.ts';
import type { Database } from './schema.ts';

export const SNAPSHOT_FORMAT = 'agent-wallet-backup';
export const SNAPSHOT_VERSION = 1;
const READ_BATCH_ROWS = 2_000;
/** Bound parameters per insert: under SQLite's 32,766 and PostgreSQL's 65,535. */
const INSERT_PARAMETERS_MAX = 30_000;

/**
 * Every table, in an order where each refers only to tables before it (the order the migrations create them).
 * test/backup.test.ts fails when a table exists that this list does not name.
 */
export const TABLES = [
  'users',
  'sessions',
  'wallets',
  'accounts',
  'ledger_transactions',
  'entries',
  'deposits',
  'idempotency_keys',
  'transactions',
  'transaction_events',
  'api_keys',
  'policies',
  'service_settings',
  'chain_cursors',
  'chain_leases',
  'chain_deposits',
  'chain_outbox',
  'policy_changes',
  'webhook_endpoints',
  'webhook_events',
  'webhook_deliveries',
  'x402_payments',
  'spending_windows',
  'totp_factors',
  'recovery_codes',
  'passkeys',
  'auth_challenges',
  'withdrawal_addresses',
  'security_events',
  'organizations',
  'members',
  'invitations',
  'audit_events',
  'audit_heads',
  'transaction_approvals',
  'email_preferences',
  'email_deliveries',
  'payment_denials',
  'alerts',
  'oauth_clients',
  'oauth_codes',
  'oauth_tokens',
  'treasury_delegations',
  'treasury_signature_requests',
] as const satisfies ReadonlyArray<keyof Database>;

export interface SnapshotSecrets {
  /** The JWT signing key's bytes as hex (what DATA_DIR/jwt-secret or JWT_SECRET holds, as UTF-8 text). */
  jwtSecret: string;
  addressSecret: string;
  treasuryMnemonic: string | null;
}

export interface SnapshotHeader {
  format: typeof SNAPSHOT_FORMAT;
  version: typeof SNAPSHOT_VERSION;
  createdAt: string;
  source: Dialect;
  migrations: string[];
  secrets: SnapshotSecrets;
}

export type SnapshotLine =
  | SnapshotHeader
  | { table: string; columns: string[] }
  | { rows: unknown[][] }
  | { end: true; counts: Record<string, number> };

/** JSON cannot hold a bigint: it travels as {"$b": "<digits>"}. */
export function encodeLine(line: SnapshotLine): string {
  return JSON.stringify(line, (_key, value) =>
    typeof value === 'bigint' ? { $b: value.toString() } : value,
  );
}

export function decodeLine(text: string): SnapshotLine {
  return JSON.parse(text, (_key, value) =>
    value !== null && typeof value === 'object' && !Array.isArray(value) && typeof value.$b === 'string'
      ? BigInt(value.$b)
      : value,
  ) as SnapshotLine;
}

/** Writes the snapshot, line by line, through `write` (which may wait: a file stream's backpressure). */
export async function writeSnapshot(
  db: Kysely<Database>,
  source: { dialect: Dialect; postgresSchema: string | undefined; secrets: SnapshotSecrets; nowIso: string },
  write: (line: string) => Promise<void>,
): Promise<Record<string, number>> {
  const migrations = await appliedMigrations(db, source.postgresSchema);
  const counts: Record<string, number> = {};
  const header: SnapshotHeader = {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    createdAt: source.nowIso,
    source: source.dialect,
    migrations,
    secrets: source.secrets,
  };
  await write(encodeLine(header));
  const read = async (trx: Kysely<Database>) => {
    for (const table of TABLES) counts[table] = await copyTable(trx, table, source.dialect, write);
  };
  if (source.dialect === 'postgres') {
    await db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(read);
  } else {
    await db.transaction().execute(read);
  }
  await write(encodeLine({ end: true, counts }));
  return counts;
}

async function copyTable(
  trx: Kysely<Database>,
  table: string,
  dialect: Dialect,
  write: (line: string) => Promise<void>,
): Promise<number> {
  const position = dialect === 'postgres' ? sql`ctid` : sql`rowid`;
  const positionType = dialect === 'postgres' ? sql`::tid` : sql``;
  let after: string | number = dialect === 'postgres' ? '(0,0)' : -1;
  let columns: string[] | null = null;
  let count = 0;
  for (;;) {
    const { rows } = await sql<Record<string, unknown>>`
      select ${position}${dialect === 'postgres' ? sql`::text` : sql``} as "__position", * from ${sql.table(table)}
      where ${position} > ${after}${positionType} order by ${position} limit ${READ_BATCH_ROWS}`.execute(trx);
    if (rows.length === 0) break;
    if (columns === null) {
      columns = Object.keys(rows[0]!).filter((c) => c !== '__position');
      await write(encodeLine({ table, columns }));
    }
    const names = columns;
    await write(encodeLine({ rows: rows.map((row) => names.map((c) => row[c] ?? null)) }));
    count += rows.length;
    after = rows.at(-1)!.__position as string | number;
  }
  return count;
}

/** Throws unless the store holds no data of a deployment (its migrations may have made their fixed rows). */
export async function assertEmpty(db: Kysely<Database>): Promise<void> {
  for (const table of ['users', 'wallets', 'ledger_transactions', 'transactions'] as const) {
    const { n } = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<bigint>().as('n'))
      .executeTakeFirstOrThrow();
    if (Number(n) > 0)
      throw new SnapshotError(
        `the target store is not empty (${table} has ${n} rows): restore only into a new one`,
      );
  }
}

export class SnapshotError extends Error {}

/**
 * Loads a snapshot into an EMPTY store: migrates it to the snapshot's release, replaces the migrations' fixed
 * rows with the snapshot's, inserts every row in one transaction, then migrates to this release. Returns the
 * header (its secrets go to DATA_DIR, see cli.ts) and the row counts loaded.
 */
export async function loadSnapshot(
  db: Kysely<Database>,
  target: { postgresSchema: string | undefined },
  lines: AsyncIterable<string>,
): Promise<{ header: SnapshotHeader; counts: Record<string, number> }> {
  const iterator = lines[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) throw new SnapshotError('the backup file is empty');
  const header = decodeLine(first.value) as SnapshotHeader;
  if (header.format !== SNAPSHOT_FORMAT || header.version !== SNAPSHOT_VERSION)
    throw new SnapshotError('not a backup of this service (or of a newer format)');
  const unknown = header.migrations.filter((m) => !MIGRATION_NAMES.includes(m));
  if (unknown.length > 0)
    throw new SnapshotError(
      `the backup comes from a newer release (migrations ${unknown.join(', ')}): restore it with that release`,
    );
  const last = header.migrations.at(-1);
  assert(last !== undefined, 'a backup records at least one migration');
  await migrateTo(db, last, target.postgresSchema);
  await assertEmpty(db);
  const counts = await db.transaction().execute(async (trx) => {
    for (const table of [...TABLES].reverse()) await trx.deleteFrom(table).execute();
    return insertLines(trx, iterator);
  });
  await migrateToLatest(db, target.postgresSchema);
  return { header, counts };
}

async function insertLines(trx: Kysely<Database>, lines: AsyncIterator<string>) {
  const counts: Record<string, number> = {};
  let current: { table: string; columns: string[] } | null = null;
  for (let next = await lines.next(); !next.done; next = await lines.next()) {
    const line = decodeLine(next.value);
    if ('end' in line) {
      for (const [table, n] of Object.entries(line.counts)) {
        if ((counts[table] ?? 0) !== n)
          throw new SnapshotError(
            `the backup is damaged: ${table} holds ${counts[table] ?? 0} rows, its end says ${n}`,
          );
      }
      return counts;
    }
    if ('table' in line) {
      if (!(TABLES as readonly string[]).includes(line.table))
        throw new SnapshotError(`unknown table ${line.table}`);
      current = line;
      continue;
    }
    if (!('rows' in line) || current === null)
      throw new SnapshotError('the backup is damaged: rows before their table');
    await insertRows(trx, current, line.rows);
    counts[current.table] = (counts[current.table] ?? 0) + line.rows.length;
  }
  throw new SnapshotError('the backup is truncated: it has no end');
}

async function insertRows(
  trx: Kysely<Database>,
  target: { table: string; columns: string[] },
  rows: unknown[][],
) {
  const perInsert = Math.max(1, Math.floor(INSERT_PARAMETERS_MAX / target.columns.length));
  for (let i = 0; i < rows.length; i += perInsert) {
    const values = rows
      .slice(i, i + perInsert)
      .map((row) => Object.fromEntries(target.columns.map((c, j) => [c, row[j]])));
    await trx
      .insertInto(target.table as keyof Database)
      .values(values as never)
      .execute();
  }
}

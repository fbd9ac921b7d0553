// Migrations are TypeScript modules listed here in order; the same list runs on SQLite and PostgreSQL,
// at start and through `agent-wallet migrate`.
import { type DatabaseIntrospector, type Kysely, sql, type TableMetadata } from 'kysely';
import { type Migration, type MigrationResultSet, Migrator } from 'kysely/migration';
import * as foundation from './migrations/0001_foundation.ts';
import * as agentAccess from './migrations/0002_agent_access.ts';
import * as pendingByUser from './migrations/0003_pending_by_user.ts';
import * as runningTotals from './migrations/0004_running_totals.ts';
import * as evmRail from './migrations/0005_evm_rail.ts';
import * as policyChanges from './migrations/0006_policy_changes.ts';
import * as webhooks from './migrations/0007_webhooks.ts';
import * as x402 from './migrations/0008_x402.ts';
import * as leanIndexes from './migrations/0009_lean_indexes.ts';
import * as spendingWindows from './migrations/0010_spending_windows.ts';
import * as custody from './migrations/0011_custody.ts';
import * as privateIncomingInitiator from './migrations/0012_private_incoming_initiator.ts';
import * as webhookSecretRotation from './migrations/0013_webhook_secret_rotation.ts';
import * as organizations from './migrations/0014_organizations.ts';
import * as email from './migrations/0015_email.ts';
import * as breakersAlerts from './migrations/0016_breakers_alerts.ts';
import * as oauth from './migrations/0017_oauth.ts';
import * as retention from './migrations/0018_retention.ts';
import * as paymentMethods from './migrations/0019_payment_methods.ts';
import * as paidRequestHistory from './migrations/0020_paid_request_history.ts';
import * as keyCreators from './migrations/0021_key_creators.ts';
import * as auditChain from './migrations/0023_audit_chain.ts';
import * as meteredPayments from './migrations/0024_metered_payments.ts';
import * as boundedTreasury from './migrations/0025_bounded_treasury.ts';
import * as x402Extensions from './migrations/0026_x402_extensions.ts';
import type { Database } from './schema.ts';

const MIGRATIONS: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_agent_access': agentAccess,
  '0003_pending_by_user': pendingByUser,
  '0004_running_totals': runningTotals,
  '0005_evm_rail': evmRail,
  '0006_policy_changes': policyChanges,
  '0007_webhooks': webhooks,
  '0008_x402': x402,
  '0009_lean_indexes': leanIndexes,
  '0010_spending_windows': spendingWindows,
  '0011_custody': custody,
  '0012_private_incoming_initiator': privateIncomingInitiator,
  '0013_webhook_secret_rotation': webhookSecretRotation,
  '0014_organizations': organizations,
  '0015_email': email,
  '0016_breakers_alerts': breakersAlerts,
  '0017_oauth': oauth,
  '0018_retention': retention,
  '0019_payment_methods': paymentMethods,
  '0020_paid_request_history': paidRequestHistory,
  '0021_key_creators': keyCreators,
  '0023_audit_chain': auditChain,
  '0024_metered_payments': meteredPayments,
  '0025_bounded_treasury': boundedTreasury,
  '0026_x402_extensions': x402Extensions,
};

/** Every migration of this release, in order. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS);

/**
 * `postgresSchema`: where Kysely keeps its migration tables on PostgreSQL. It must be explicit: Kysely looks
 * for its tables across all schemas, so two schemas migrating side by side (tests) would see each other's.
 */
function migratorFor(db: Kysely<Database>, postgresSchema: string | undefined): Migrator {
  return new Migrator({
    db: postgresSchema === undefined ? db : introspectingOnly(db, postgresSchema),
    provider: { getMigrations: async () => MIGRATIONS },
    ...(postgresSchema === undefined ? {} : { migrationTableSchema: postgresSchema }),
  });
}

/**
 * `db` whose introspection sees the tables of `schema` alone. Kysely's Migrator asks for every table of every
 * schema to learn whether its own exist, and PostgreSQL's catalog functions in that query fail with "schema …
 * does not exist" when another schema is dropped meanwhile (seen: suites migrating while others end); the
 * Migrator reads only the names and schemas of the answer.
 */
function introspectingOnly(db: Kysely<Database>, schema: string): Kysely<Database> {
  const introspection: DatabaseIntrospector = {
    getSchemas: () => db.introspection.getSchemas(),
    getTables: (options) => tablesOf(db, schema, options?.withInternalKyselyTables),
  };
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspection;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

async function tablesOf(
  db: Kysely<Database>,
  schema: string,
  withKyselyTables = false,
): Promise<TableMetadata[]> {
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables where table_schema = ${schema}`.execute(db);
  return rows
    .filter((row) => withKyselyTables || !row.name.startsWith('kysely_'))
    .map((row) => ({ name: row.name, schema, isView: false, isForeign: false, columns: [] }));
}

/** The migrations a run applied; a failed one is thrown, named. */
function appliedOrThrow({ error, results }: MigrationResultSet): string[] {
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Migrates up to and including `name` (a restore from an older release's backup loads its rows into the schema
 * they were written for, then migrates the rest of the way).
 */
export async function migrateTo(db: Kysely<Database>, name: string, postgresSchema?: string): Promise<void> {
  appliedOrThrow(await migratorFor(db, postgresSchema).migrateTo(name));
}

/** The names of the migrations applied to this database, in order. */
export async function appliedMigrations(db: Kysely<Database>, postgresSchema?: string): Promise<string[]> {
  const all = await migratorFor(db, postgresSchema).getMigrations();
  return all.filter((m) => m.executedAt !== undefined).map((m) => m.name);
}

export interface MigrationReport {
  applied: string[];
}

export async function migrateToLatest(
  db: Kysely<Database>,
  postgresSchema?: string,
): Promise<MigrationReport> {
  return { applied: appliedOrThrow(await migratorFor(db, postgresSchema).migrateToLatest()) };
}

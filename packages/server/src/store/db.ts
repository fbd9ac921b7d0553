// Opens the one store the service uses: embedded SQLite (better-sqlite3, WAL) by default, PostgreSQL when
// DATABASE_URL says postgres://. Everything above this file speaks Kysely and never learns which.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Where the data lives, for logs and health output; never contains a password. */
  location: string;
  /** PostgreSQL: the schema the tables live in (current_schema()); undefined on SQLite. */
  schema: string | undefined;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** `postgres://…` selects PostgreSQL; undefined selects SQLite in `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** PostgreSQL schema to create and use (tests give each suite its own). */
  postgresSchema: string | undefined;
  postgresPoolSizeMax: number;
  sqliteBusyTimeoutMs: number;
}

const PG_TYPE_INT8 = 20;
const PG_TYPE_NUMERIC = 1700;

export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.databaseUrl === undefined) return openSqlite(options);
  const protocol = new URL(options.databaseUrl).protocol;
  if (protocol !== 'postgres:' && protocol !== 'postgresql:') {
    throw new Error(`DATABASE_URL must start with postgres:// (got ${protocol}//…)`);
  }
  return openPostgres(options.databaseUrl, options);
}

function openSqlite(options: StoreOptions): Store {
  // 0700: the directory also holds the generated JWT secret.
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const file = join(options.dataDir, 'agent-wallet.sqlite');
  const sqlite = new SqliteDatabase(file, { timeout: options.sqliteBusyTimeoutMs });
  // WAL lets readers run beside the writer; synchronous=FULL fsyncs every commit, so an acknowledged payment
  // survives a power cut (group commit pays that fsync once per batch, not once per payment).
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`busy_timeout = ${options.sqliteBusyTimeoutMs}`);
  // Every INTEGER comes back as bigint, as int8 does from PostgreSQL below: one code path for both.
  sqlite.defaultSafeIntegers(true);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return { db, dialect: 'sqlite', location: file, schema: undefined, close: () => db.destroy() };
}

/** Distinct SQL texts kept prepared; the service has a few dozen, so this only bounds a surprise. */
const STATEMENT_CACHE_MAX = 512;

/**
 * Kysely prepares every query anew; measured, preparing took a fifth of the CPU of a payment. The SQL text of
 * a query is the same every time (values are parameters), so prepared statements are reused by text.
 */
function withStatementCache(sqlite: SqliteDatabase.Database) {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      let statement = statements.get(text);
      if (statement === undefined) {
        statement = sqlite.prepare(text);
        if (statements.size >= STATEMENT_CACHE_MAX)
          statements.delete(statements.keys().next().value as string);
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

async function openPostgres(url: string, options: StoreOptions): Promise<Store> {
  const schema = options.postgresSchema;
  if (schema !== undefined) await createSchema(url, schema);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.postgresPoolSizeMax,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
    types: { getTypeParser: pgTypeParser },
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  // Fails at start, not at the first request, when the database is unreachable.
  const current = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const safeUrl = new URL(url);
  safeUrl.password = '';
  const location = `${safeUrl.host}${safeUrl.pathname}${schema === undefined ? '' : `#${schema}`}`;
  const resolvedSchema = current.rows[0]?.schema ?? 'public';
  return { db, dialect: 'postgres', location, schema: resolvedSchema, close: () => db.destroy() };
}

// int8 and numeric (what SUM(bigint) returns) become bigint; the service never stores fractional numerics.
function pgTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  if (oid === PG_TYPE_INT8 || oid === PG_TYPE_NUMERIC) return (value: string) => BigInt(value);
  return pg.types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
}

async function createSchema(url: string, schema: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`bad schema name ${schema}`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`create schema if not exists ${schema}`);
  } finally {
    await client.end();
  }
}

// Opens the one store the service uses: embedded SQLite (better-sqlite3, WAL) by default, PostgreSQL when
// DATABASE_URL says postgres://. Everything above this file speaks Kysely and never learns which.
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  type CompiledQuery,
  Kysely,
  PostgresDialect,
  type PostgresPoolClient,
  SqliteDialect,
  sql,
} from 'kysely';
import pg from 'pg';
import { isBrokenConnection } from './errors.ts';
import type { Database } from './schema.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Where the data lives, for logs and health output; never contains a password. */
  location: string;
  /** PostgreSQL: the schema the tables live in (current_schema()); undefined on SQLite. */
  schema: string | undefined;
  /** PostgreSQL: connections checked out and callers waiting for one (for metrics); undefined on SQLite. */
  poolStats(): { inUse: number; waiting: number } | undefined;
  /** Statements sent to the database since it opened, BEGIN and COMMIT included: round trips on PostgreSQL. */
  statementCount(): number;
  /**
   * SQLite: runs a compiled read at once, synchronously, when no transaction is open on the connection (so it
   * can only see committed data); null while the ledger writer holds one open (go through Kysely, which waits
   * for it). PostgreSQL: always null. Measured, check_balance through Kysely's async driver cost twice the CPU
   * of the same read run at once.
   */
  readNow<R>(query: CompiledQuery<R>): R[] | null;
  /**
   * SQLite: a value that changes whenever the database may have changed (a statement that can write ran on
   * this connection, or another process committed), null while a transaction is open; a read taken under one
   * value is exact for as long as the value stays the same. PostgreSQL (other instances write): always null.
   */
  committedVersion(): string | null;
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
  /** Bounds opening a connection and waiting for a pooled one (pg applies one timer to both). */
  connectTimeoutMs: number;
  /** Server-side statement_timeout; the client gives up on an unanswered query shortly after it. */
  statementTimeoutMs: number;
  /**
   * PostgreSQL behind a transaction-pooling proxy (PgBouncer pool_mode=transaction): no session state — no
   * startup settings (statement_timeout, search_path: set them on the role or in the pooler), no named prepared
   * statements (a statement prepared on one server connection is unknown on the next).
   */
  transactionPooling?: boolean;
  /** Told of errors on idle or checked-out connections (a restart, a failover); the pool survives them. */
  onConnectionError: (error: Error) => void;
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
  ownerOnly(file);
  const sqlite = openSqliteFile(file, options.sqliteBusyTimeoutMs);
  const counter = { statements: 0, writes: 0 };
  const cached = withStatementCache(sqlite, counter);
  const otherCommits = walIndexWatcher(`${file}-shm`);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cached }) });
  return {
    db,
    dialect: 'sqlite',
    location: file,
    schema: undefined,
    poolStats: () => undefined,
    statementCount: () => counter.statements,
    readNow<R>(query: CompiledQuery<R>): R[] | null {
      if (sqlite.inTransaction) return null;
      return cached.prepare(query.sql).all(...query.parameters) as R[];
    },
    committedVersion(): string | null {
      if (sqlite.inTransaction) return null;
      return `${counter.writes}:${otherCommits.changes()}`;
    },
    close: async () => {
      otherCommits.close();
      await db.destroy();
    },
  };
}

/** A connection to the service's SQLite file with the service's pragmas (the raw ledger benchmark uses it too). */
export function openSqliteFile(file: string, busyTimeoutMs: number): SqliteDatabase.Database {
  const sqlite = new SqliteDatabase(file, { timeout: busyTimeoutMs });
  // WAL lets readers run beside the writer; synchronous=FULL fsyncs every commit, so an acknowledged payment
  // survives a power cut (group commit pays that fsync once per batch, not once per payment).
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
  // A batch's multi-row insert is one statement that may touch a hundred pages; SQLite keeps a copy of each in
  // its statement journal (to undo just that statement), which past 64 KiB spilled to a temporary file.
  // Measured, a batch's insert into transactions took 800 µs with the journal on file and 510 µs in memory.
  // Durability is the WAL's alone; the statement journal lives only while its statement runs, and its size is
  // bounded by the pages one batch changes (LEDGER_BATCH_MAX commands).
  sqlite.pragma('temp_store = MEMORY');
  // Every INTEGER comes back as bigint, as int8 does from PostgreSQL below: one code path for both.
  sqlite.defaultSafeIntegers(true);
  return sqlite;
}

/** The wal-index header: its first copy is 48 bytes at the start of the -shm file (sqlite.org/walformat.html). */
const WAL_INDEX_HEADER_BYTES = 48;

/**
 * Counts commits by other connections (another process on the same file): every commit rewrites the wal-index
 * header in the -shm file (its frame count, or its salts when the WAL restarts), so a header that differs from
 * the last one read means the database may have changed. One pread, no lock: measured, `pragma data_version`
 * (which opens a read transaction) cost as much as the cached read it guarded. A torn read only differs, so
 * it can only cause a miss, never a stale hit.
 */
function walIndexWatcher(shmFile: string): { changes: () => number; close: () => void } {
  const last = Buffer.alloc(WAL_INDEX_HEADER_BYTES);
  const now = Buffer.alloc(WAL_INDEX_HEADER_BYTES);
  let fd: number | undefined;
  let changes = 0;
  const headerRead = (): boolean => {
    try {
      fd ??= openSync(shmFile, 'r');
      return readSync(fd, now, 0, WAL_INDEX_HEADER_BYTES, 0) === WAL_INDEX_HEADER_BYTES;
    } catch {
      return false; // no header to compare: count it as a change (nothing is served from memory)
    }
  };
  return {
    changes() {
      if (!headerRead() || !now.equals(last)) {
        changes += 1;
        now.copy(last);
      }
      return changes;
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

/**
 * The database holds emails and password hashes: 0600 whatever the directory's mode or the umask. SQLite
 * creates its -wal and -shm files with the database file's mode, so creating the file first covers all three;
 * files of an older install (0644) are tightened too.
 */
function ownerOnly(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(path)) chmodSync(path, 0o600);
  }
}

/** Distinct SQL texts kept prepared; the service has a few dozen, so this only bounds a surprise. */
const STATEMENT_CACHE_MAX = 512;

/**
 * Kysely prepares every query anew; measured, preparing took a fifth of the CPU of a payment. The SQL text of
 * a query is the same every time (values are parameters), so prepared statements are reused by text.
 */
function withStatementCache(
  sqlite: SqliteDatabase.Database,
  counter: { statements: number; writes: number },
) {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      // Kysely prepares once per execution: this counts statements run.
      counter.statements += 1;
      let statement = statements.get(text);
      if (statement === undefined) {
        statement = sqlite.prepare(text);
        if (statements.size >= STATEMENT_CACHE_MAX)
          statements.delete(statements.keys().next().value as string);
        statements.set(text, statement);
      }
      // Counted before it runs: a read cached while it runs in an open transaction is never trusted.
      if (!statement.readonly) counter.writes += 1;
      return statement;
    },
  };
}

/** How much longer than statement_timeout the client waits for an answer before it calls the socket dead. */
const QUERY_TIMEOUT_MARGIN_MS = 1_000;
/** A transaction left open by a vanished client must not hold its row locks for long. */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;

/** What a connection asks of its session at start; nothing behind a transaction-pooling proxy. */
function sessionSettings(options: StoreOptions, schema: string | undefined) {
  if (options.transactionPooling === true) return {};
  return {
    // 0: unbounded (operator commands such as verify-ledger on a large ledger).
    ...(options.statementTimeoutMs === 0 ? {} : { statement_timeout: options.statementTimeoutMs }),
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  };
}

/** A pooler that refuses session settings at connect time gets a message that says what to set. */
function explainStartFailure(error: unknown): unknown {
  const message = error instanceof Error ? error.message : String(error);
  if (!/unsupported startup parameter/i.test(message)) return error;
  return new Error(
    `the database proxy refused this service's session settings (${message}): behind PgBouncer with pool_mode=transaction, set DATABASE_POOL_MODE=transaction, and give the schema as the role's search_path or PgBouncer's connect_query instead of DATABASE_SCHEMA`,
  );
}

async function openPostgres(url: string, options: StoreOptions): Promise<Store> {
  const schema = options.postgresSchema;
  if (schema !== undefined) await createSchema(url, schema, options.connectTimeoutMs);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.postgresPoolSizeMax,
    connectionTimeoutMillis: options.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    // The client's own bound works through any proxy: an unanswered query fails after it.
    ...(options.statementTimeoutMs === 0
      ? {}
      : { query_timeout: options.statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS }),
    ...sessionSettings(options, schema),
    keepAlive: true,
    types: { getTypeParser: pgTypeParser },
  });
  const counter = { statements: 0 };
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({
      pool: survivingPool(
        pool,
        options.onConnectionError,
        counter,
        options.transactionPooling === true ? 0 : PREPARED_STATEMENTS_MAX,
      ),
    }),
  });
  // Fails at start, not at the first request, when the database is unreachable (and leaves no pool open).
  const current = await sql<{ schema: string }>`select current_schema() as schema`
    .execute(db)
    .catch(async (error: unknown) => {
      await db.destroy().catch(() => undefined);
      throw explainStartFailure(error);
    });
  const safeUrl = new URL(url);
  safeUrl.password = '';
  const location = `${safeUrl.host}${safeUrl.pathname}${schema === undefined ? '' : `#${schema}`}`;
  const resolvedSchema = current.rows[0]?.schema ?? 'public';
  return {
    db,
    dialect: 'postgres',
    location,
    schema: resolvedSchema,
    poolStats: () => ({ inUse: pool.totalCount - pool.idleCount, waiting: pool.waitingCount }),
    statementCount: () => counter.statements,
    readNow: () => null,
    committedVersion: () => null,
    close: () => db.destroy(),
  };
}

// int8 and numeric (what SUM(bigint) returns) become bigint; the service never stores fractional numerics.
function pgTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  if (oid === PG_TYPE_INT8 || oid === PG_TYPE_NUMERIC) return (value: string) => BigInt(value);
  return pg.types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
}

/**
 * The pool as Kysely sees it, made to survive the database going away: an error on an idle or a checked-out
 * client is reported instead of crashing the process (pg emits 'error' with no listener otherwise), and a
 * client whose connection broke (terminated, reset, timed out mid-query) is destroyed on release, never
 * handed out again. New connections are made on demand, so the service recovers by itself.
 */
function survivingPool(
  pool: pg.Pool,
  onConnectionError: (error: Error) => void,
  counter: { statements: number },
  preparedMax: number,
) {
  const broken = new WeakSet<pg.PoolClient>();
  // One wrapper per pg client: Kysely keeps a connection object per client it is given.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  pool.on('error', onConnectionError);
  pool.on('connect', (client) => {
    client.on('error', (error) => {
      broken.add(client);
      onConnectionError(error);
    });
  });
  const prepared = preparedStatements(preparedMax);
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    const wrapper = {
      processID: (client as unknown as { processID?: number }).processID,
      query: async (text: string, values: readonly unknown[]) => {
        // A connection that broke answers nothing more: fail at once instead of waiting out another timeout
        // (a savepoint rollback, then the transaction's rollback, would each wait the full query timeout).
        if (broken.has(client)) throw new Error('Connection terminated: this connection broke earlier');
        counter.statements += 1;
        try {
          return await client.query(prepared.configFor(text, values as unknown[]));
        } catch (error) {
          if (isBrokenConnection(error)) broken.add(client);
          throw error;
        }
      },
      release: (destroy?: boolean) => client.release(destroy === true || broken.has(client)),
    } as unknown as PostgresPoolClient;
    wrappers.set(client, wrapper);
    return wrapper;
  };
  return {
    options: pool.options,
    connect: async () => {
      const client = await pool.connect();
      return wrappers.get(client) ?? wrap(client);
    },
    end: () => pool.end(),
  };
}

/** Distinct statements kept prepared on each connection: bounds the server memory they hold. */
const PREPARED_STATEMENTS_MAX = 256;
/** Executions of one SQL text before it is prepared: one-off statements are not worth a name. */
const PREPARE_AFTER_EXECUTIONS = 3;

/**
 * node-postgres sends every query unnamed, so PostgreSQL parses and plans it each time: measured, planning
 * check_balance's query took 0.75 ms of its 0.95. A SQL text seen often gets a name (a hash of the text), which
 * makes node-postgres prepare it once per connection and PostgreSQL reuse its plan. At most `max` names, so a
 * connection never holds more than that; statements without parameters (BEGIN, COMMIT) are left unnamed.
 */
function preparedStatements(max: number) {
  const seen = new Map<string, number>();
  const named = new Map<string, string>();
  return {
    configFor(text: string, values: unknown[]): pg.QueryConfig {
      if (values.length === 0) return { text, values };
      let name = named.get(text);
      if (name === undefined && named.size < max) {
        const count = (seen.get(text) ?? 0) + 1;
        if (count >= PREPARE_AFTER_EXECUTIONS) {
          name = `aw_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
          named.set(text, name);
          seen.delete(text);
        } else if (seen.size < max * 16) seen.set(text, count);
      }
      return name === undefined ? { text, values } : { name, text, values };
    },
  };
}

async function createSchema(url: string, schema: string, connectTimeoutMs: number): Promise<void> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`bad schema name ${schema}`);
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
  client.on('error', () => undefined); // a failure surfaces as the rejected query below
  await client.connect();
  try {
    await client.query(`create schema if not exists ${schema}`);
  } finally {
    await client.end();
  }
}

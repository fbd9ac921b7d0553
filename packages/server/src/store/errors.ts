// Recognises constraint violations from either driver without leaking driver types upward.

/** A unique or primary-key violation (SQLite SQLITE_CONSTRAINT_UNIQUE/PRIMARYKEY, PostgreSQL 23505). */
export function isUniqueViolation(error: unknown): boolean {
  const code = errorCode(error);
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** A transaction the database aborted to break a deadlock or a serialisation conflict: safe to re-run. */
export function isRetryableConflict(error: unknown): boolean {
  const code = errorCode(error);
  return code === '40P01' || code === '40001';
}

// Socket errors, PostgreSQL's admin shutdown/crash/cannot-connect-now (57P0x) and connection exceptions (08xxx).
const BROKEN_CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
]);
// pg reports its own timeouts and dead sockets as plain Errors without a code; these are their messages.
const BROKEN_CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'is not queryable',
  'connection timeout',
  // A statement prepared on this connection (db.ts) whose table changed shape (another instance migrated):
  // every later use fails the same way, so the connection is dropped and its replacement prepares afresh.
  'cached plan must not change result type',
];
// Statement timeout or cancel (57014), too many connections (53300), lock not available (55P03), SQLite busy.
const OVERLOADED_CODES = new Set(['57014', '53300', '53400', '55P03', 'SQLITE_BUSY']);

/**
 * The connection itself is unusable (refused, reset, terminated by the server, timed out mid-query): the
 * pooled client must be destroyed, not reused. Always also a store outage for the caller.
 */
export function isBrokenConnection(error: unknown): boolean {
  const code = errorCode(error);
  if (code !== undefined && (BROKEN_CONNECTION_CODES.has(code) || code.startsWith('08'))) return true;
  const message = error instanceof Error ? error.message : '';
  return BROKEN_CONNECTION_MESSAGES.some((text) => message.includes(text));
}

/** The backing store is down, unreachable or too slow: answer 503 SERVICE_UNAVAILABLE, never 500. */
export function isConnectionFailure(error: unknown): boolean {
  const code = errorCode(error);
  return isBrokenConnection(error) || (code !== undefined && OVERLOADED_CODES.has(code));
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

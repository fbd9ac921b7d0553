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

/** The database connection itself failed (refused, reset, pool exhausted). */
export function isConnectionFailure(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === '57P01' || code === 'SQLITE_BUSY';
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

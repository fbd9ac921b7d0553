// The predicates of migration 0009's partial indexes, written into the queries that need those indexes. SQLite
// uses a partial index only when the query's WHERE contains the index's own term, and PostgreSQL's generic plan
// of a prepared statement cannot prove `status <> 'completed'` from `status = $1`: so the term is repeated
// literally, never as a parameter.
import { sql } from 'kysely';

/** transactions_wallet_open_idx (wallet_id, status, created_at_ms): every payment that is not completed. */
export const notCompleted = sql<boolean>`status <> 'completed'`;

/** transactions_pending_expiry_idx (expires_at_ms) and transactions_user_pending_idx (user_id). */
export const isPending = sql<boolean>`status = 'pending'`;

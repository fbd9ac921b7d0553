// The logs as routes reach them: the audit log (written ahead by every session write, read by GET /audit) and a
// member's security events. Routes hold no store and no writer, so these are bound to them here.
import type { LedgerWriter } from '../../ledger/writer.ts';
import type { Store } from '../../store/db.ts';
import { isConnectionFailure } from '../../store/errors.ts';
import { createGroupCommit, type GroupCommitOptions } from '../group-commit.ts';
import {
  AUDIT_SEALS_MAX,
  type AuditIntentInput,
  type AuditOutcomeInput,
  type AuditSealInput,
  type BegunAuditLine,
  beginAuditLines,
  listAudit,
  sealAuditLines,
} from './audit-log.ts';
import { listSecurityEvents } from './security-events.ts';

/** A function of the store's handle with the handle already given. */
type Bound<F> = F extends (db: never, ...rest: infer A) => infer R ? (...args: A) => R : never;

export interface AuditLog {
  /** A line's intent, in the chain before its write runs (http/route.ts runs every session write through it). */
  begin(input: AuditIntentInput): Promise<BegunAuditLine>;
  /** The line's outcome, sealed after the write. */
  complete(line: BegunAuditLine, outcome: AuditOutcomeInput): Promise<void>;
  /** The organization's log, a page at a time. */
  list: Bound<typeof listAudit>;
}

export interface SecurityEventLog {
  /** A member's security events, newest first. */
  list: Bound<typeof listSecurityEvents>;
}

/**
 * Lines begun together go in one transaction, and so do seals (services/group-commit.ts): every session write
 * waits for two of them, and under load most of its time was theirs. 128 lines: 1,152 parameters in the insert.
 */
const AUDIT_GROUP: GroupCommitOptions = {
  maxItems: 128,
  maxWaiting: 4_096,
  isUnreachable: isConnectionFailure,
};

export function createAuditLog(store: Store, writer: LedgerWriter): AuditLog {
  const begin = createGroupCommit<AuditIntentInput, BegunAuditLine>(
    (inputs) => writer.run((trx) => beginAuditLines(trx, store.dialect, inputs)),
    AUDIT_GROUP,
  );
  // PostgreSQL: the seals' one statement is atomic alone; its writer would only wrap it in BEGIN and COMMIT (two
  // more round trips). SQLite: the writer holds the one write lock.
  const seal = createGroupCommit<AuditSealInput, undefined>(
    store.dialect === 'postgres'
      ? (seals) => sealAuditLines(store.db, seals)
      : (seals) => writer.run((trx) => sealAuditLines(trx, seals)),
    { ...AUDIT_GROUP, maxItems: AUDIT_SEALS_MAX },
  );
  return {
    begin,
    complete: (line, outcome) => seal({ line, outcome }),
    list: (scope, filter, page) => listAudit(store.db, scope, filter, page),
  };
}

export function createSecurityEventLog(store: Store): SecurityEventLog {
  return { list: (userId, page) => listSecurityEvents(store.db, userId, page) };
}

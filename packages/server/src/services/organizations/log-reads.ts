// The logs as routes reach them: the audit log (written ahead by every session write, read by GET /audit) and a
// member's security events. Routes hold no store and no writer, so these are bound to them here.
import type { LedgerWriter } from '../../ledger/writer.ts';
import type { Store } from '../../store/db.ts';
import {
  type AuditIntentInput,
  type AuditOutcomeInput,
  type BegunAuditLine,
  beginAudit,
  completeAudit,
  listAudit,
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

export function createAuditLog(store: Store, writer: LedgerWriter): AuditLog {
  return {
    begin: (input) => beginAudit(writer, store.dialect, input),
    complete: (line, outcome) => completeAudit(writer, line, outcome),
    list: (scope, filter, page) => listAudit(store.db, scope, filter, page),
  };
}

export function createSecurityEventLog(store: Store): SecurityEventLog {
  return { list: (userId, page) => listSecurityEvents(store.db, userId, page) };
}

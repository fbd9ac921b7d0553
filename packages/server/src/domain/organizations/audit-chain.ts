// The audit log's hash chain: each organization's lines are numbered 1, 2, 3… and each line's `hash` covers the
// previous line's hash, so a line removed, reordered or rewritten breaks every hash after it. A line is written
// in two steps (services/organizations/audit-log.ts): its intent (who, what, when) before the write runs, linked into the chain,
// and its outcome (what it changed, the answer) once the write is done, sealed by `sealedHash` over the line's
// hash. The chain proves nothing was removed when its head (seq, hash) is compared with one kept elsewhere:
// `agent-wallet verify-audit` prints each head.
import { createHash } from 'node:crypto';

/** The hash before an organization's first line. */
export const AUDIT_GENESIS_HASH = '0'.repeat(64);

export type AuditOutcome = 'pending' | 'completed' | 'refused';

/** What is known before the write runs: linked into the chain. */
export interface AuditIntent {
  id: string;
  organizationId: string;
  seq: bigint;
  atMs: bigint;
  actorType: string;
  actorId: string;
  action: string;
}

/** What is known once the write is done: sealed over the line's hash. */
export interface AuditSeal {
  outcome: AuditOutcome;
  target: string | null;
  walletId: string | null;
  beforeJson: string | null;
  afterJson: string | null;
}

export interface AuditLine extends AuditIntent, AuditSeal {
  hash: string;
  /** null while the outcome is pending. */
  sealedHash: string | null;
}

function sha256(fields: ReadonlyArray<string | null>): string {
  // JSON of an array of strings and nulls: unambiguous whatever a field holds (no separator to forge).
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}

export function linkHash(previousHash: string, intent: AuditIntent): string {
  return sha256([
    previousHash,
    intent.seq.toString(),
    intent.id,
    intent.organizationId,
    intent.atMs.toString(),
    intent.actorType,
    intent.actorId,
    intent.action,
  ]);
}

export function sealHash(hash: string, seal: AuditSeal): string {
  return sha256([hash, seal.outcome, seal.target, seal.walletId, seal.beforeJson, seal.afterJson]);
}

/** Where one organization's chain stands after a run of lines (the head kept beside it). */
export interface AuditHead {
  seq: bigint;
  hash: string;
}

export interface ChainCheck {
  head: AuditHead;
  lines: number;
  pending: number;
  problems: string[];
}

export const AUDIT_PROBLEMS_REPORTED_MAX = 20;

/**
 * Checks the next lines of one organization's chain (in seq order) from where `from` left it: consecutive
 * numbers, each hash over the previous one, each outcome sealed. Pure, so the CLI can check a chain a page at
 * a time without holding it.
 */
export function checkChainLines(from: ChainCheck, lines: readonly AuditLine[]): ChainCheck {
  const problems = [...from.problems];
  let head = from.head;
  let pending = from.pending;
  const report = (text: string) => {
    if (problems.length < AUDIT_PROBLEMS_REPORTED_MAX) problems.push(text);
  };
  for (const line of lines) {
    if (line.seq !== head.seq + 1n) report(`line ${line.id}: number ${line.seq} follows ${head.seq}`);
    if (line.hash !== linkHash(head.hash, line))
      report(`line ${line.id} (${line.seq}): its hash does not link`);
    if (line.outcome === 'pending') {
      pending += 1;
      if (line.sealedHash !== null) report(`line ${line.id} (${line.seq}): pending but sealed`);
    } else if (line.sealedHash !== sealHash(line.hash, line)) {
      report(`line ${line.id} (${line.seq}): its outcome does not match its seal`);
    }
    head = { seq: line.seq, hash: line.hash };
  }
  return { head, lines: from.lines + lines.length, pending, problems };
}

export function chainStart(): ChainCheck {
  return { head: { seq: 0n, hash: AUDIT_GENESIS_HASH }, lines: 0, pending: 0, problems: [] };
}

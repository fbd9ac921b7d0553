// The organization's audit log (contract section 9): who changed what. REST writes are recorded by the route
// layer (http/route.ts) with the member who made them; what agents did is already in transaction_events (every
// transaction's creation and each status change names its actor, `key:<id>` for a tool call), so the log reads
// both rather than writing every payment twice. Newest first, paginated, filtered by wallet, actor and time.
import { type Kysely, type Selectable, sql } from 'kysely';
import { isoFromMs } from '../../clock.ts';
import { newId } from '../../domain/ids.ts';
import {
  AUDIT_GENESIS_HASH,
  type AuditLine,
  chainStart,
  checkChainLines,
  linkHash,
  sealHash,
} from '../../domain/organizations/audit-chain.ts';
import { assert } from '../../errors.ts';
import type { Dialect } from '../../store/db.ts';
import type { Database } from '../../store/schema.ts';
import { type Page, pageOffset } from '../context.ts';

/** Seals in one statement: 7 parameters each, well under either store's limit. */
export const AUDIT_SEALS_MAX = 256;
/** A stored before/after is cut at this many characters (a policy's 1,000 addresses stay whole). */
const AUDIT_JSON_LENGTH_MAX = 64_000;
/** Fields never written to the audit log, at any depth: the secrets some answers show once. */
const SECRET_FIELDS = new Set([
  // The consent's answer: its redirectTo carries the single-use authorization code.
  'redirectTo',
  'codeChallenge',
  'key',
  'token',
  'secret',
  'password',
  'recoveryCodes',
  'otpauthUrl',
  'mfaToken',
  'invitationToken',
]);

export interface AuditActor {
  type: 'member' | 'agent' | 'system';
  id: string;
  label: string | null;
}

export interface AuditView {
  id: string;
  at: string;
  actor: AuditActor;
  action: string;
  /** unknown: the write began and its outcome was never recorded (a crash), or it is running now. */
  outcome: 'completed' | 'unknown';
  target: string | null;
  walletId: string | null;
  before: unknown;
  after: unknown;
}

export interface AuditFilter {
  walletId?: string | undefined;
  actor?: string | undefined;
  fromMs?: number | undefined;
  toMs?: number | undefined;
}

/** A copy of `value` without secret fields, as JSON text (null for nothing). */
export function auditJson(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const text = JSON.stringify(value, (field, inner) => (SECRET_FIELDS.has(field) ? undefined : inner));
  if (text === undefined) return null;
  return text.length <= AUDIT_JSON_LENGTH_MAX ? text : JSON.stringify({ truncated: true });
}

/** What is known of a session write before it runs: who, what, when. */
export interface AuditIntentInput {
  organizationId: string;
  actor: { type: 'member'; id: string };
  action: string;
  nowMs: number;
}

/**
 * Writes lines' intents before their writes run (write-ahead), numbered and linked into each organization's chain
 * in one transaction that locks the chains' heads (in id order: two instances never wait on each other in opposite
 * orders): a write the log does not hold never runs, and a crash after the write leaves its line `pending` (shown
 * as an unknown outcome), never missing. Answers each line's id and hash, in order; the intents of one
 * organization are numbered in the order given.
 */
export async function beginAuditLines(
  trx: Kysely<Database>,
  dialect: Dialect,
  inputs: readonly AuditIntentInput[],
): Promise<BegunAuditLine[]> {
  assert(inputs.length > 0, 'a group of audit lines is not empty');
  const organizationIds = [...new Set(inputs.map((input) => input.organizationId))].sort();
  const chains = await lockChainHeads(trx, dialect, organizationIds);
  const lines = inputs.map((input) => linkIntent(chains, input));
  const rows = lines.map((line) => line.row);
  const heads = [...chains];
  if (dialect === 'postgres') {
    // One round trip fewer: the lines go in with the statement that moves the first chain's head.
    const [first, ...rest] = heads;
    assert(first !== undefined, 'a group of lines moves at least one head');
    await trx
      .with('lines', (db) => db.insertInto('audit_events').values(rows).returning('id'))
      .updateTable('audit_heads')
      .set({ seq: first[1].seq, hash: first[1].hash })
      .where('organization_id', '=', first[0])
      .execute();
    await moveChainHeads(trx, rest);
  } else {
    await trx.insertInto('audit_events').values(rows).execute();
    await moveChainHeads(trx, heads);
  }
  return lines.map((line) => line.begun);
}

type ChainHead = { seq: bigint; hash: string };

/**
 * The chains' heads, read in id order (PostgreSQL: locked; SQLite's writer holds the one write lock for its whole
 * batch). An organization's first line makes its head first: an insert only then, not on every line.
 */
async function lockChainHeads(
  trx: Kysely<Database>,
  dialect: Dialect,
  organizationIds: readonly string[],
): Promise<Map<string, ChainHead>> {
  const read = () => {
    const query = trx
      .selectFrom('audit_heads')
      .select(['organization_id', 'seq', 'hash'])
      .where('organization_id', 'in', organizationIds)
      .orderBy('organization_id');
    return (dialect === 'postgres' ? query.forUpdate() : query).execute();
  };
  let heads = await read();
  if (heads.length < organizationIds.length) {
    await trx
      .insertInto('audit_heads')
      .values(organizationIds.map((id) => ({ organization_id: id, seq: 0n, hash: AUDIT_GENESIS_HASH })))
      .onConflict((conflict) => conflict.column('organization_id').doNothing())
      .execute();
    heads = await read();
  }
  assert(heads.length === organizationIds.length, 'every organization of the group has a chain head');
  return new Map(heads.map((h) => [h.organization_id, { seq: BigInt(h.seq), hash: h.hash }]));
}

async function moveChainHeads(
  trx: Kysely<Database>,
  heads: ReadonlyArray<[string, ChainHead]>,
): Promise<void> {
  for (const [organizationId, head] of heads) {
    await trx
      .updateTable('audit_heads')
      .set({ seq: head.seq, hash: head.hash })
      .where('organization_id', '=', organizationId)
      .execute();
  }
}

/** The next line of an organization's chain (moving its head in `chains`): its row and what its seal needs. */
function linkIntent(chains: Map<string, ChainHead>, input: AuditIntentInput) {
  const head = chains.get(input.organizationId);
  assert(head !== undefined, 'the chain head was read before its lines are linked');
  const intent = {
    id: newId('aud'),
    organizationId: input.organizationId,
    seq: head.seq + 1n,
    atMs: BigInt(input.nowMs),
    actorType: input.actor.type,
    actorId: input.actor.id,
    action: input.action,
  };
  const hash = linkHash(head.hash, intent);
  assert(/^[0-9a-f]{64}$/.test(hash), 'a begun line carries its chain hash');
  chains.set(input.organizationId, { seq: intent.seq, hash });
  const row = {
    id: intent.id,
    organization_id: intent.organizationId,
    at_ms: intent.atMs,
    actor_type: input.actor.type,
    actor_id: intent.actorId,
    action: intent.action,
    seq: intent.seq,
    hash,
    outcome: 'pending' as const,
  };
  return { row, begun: { id: intent.id, hash } };
}

/** A begun line: its id, and the hash its seal is made over (so the seal reads nothing back). */
export interface BegunAuditLine {
  id: string;
  hash: string;
}

/** What a session write did: its outcome, target, wallet and the before/after without secrets. */
export interface AuditOutcomeInput {
  outcome: 'completed' | 'refused';
  target: string | null;
  walletId: string | null;
  before: unknown;
  after: unknown;
}

/** A pending line and what its write did: one seal. */
export interface AuditSealInput {
  line: BegunAuditLine;
  outcome: AuditOutcomeInput;
}

/**
 * Seals pending lines with what their writes did (once: a sealed line is never rewritten), in one statement: it is
 * atomic alone, so on PostgreSQL it needs no transaction around it. The VALUES list's columns are column1… on both
 * stores.
 */
export async function sealAuditLines(
  db: Kysely<Database>,
  seals: readonly AuditSealInput[],
): Promise<undefined[]> {
  assert(seals.length > 0 && seals.length <= AUDIT_SEALS_MAX, 'a group of seals is not empty and bounded');
  const rows = seals.map(({ line, outcome }) => {
    const seal = {
      outcome: outcome.outcome,
      target: outcome.target,
      walletId: outcome.walletId,
      beforeJson: auditJson(outcome.before),
      afterJson: auditJson(outcome.after),
    };
    const values = [line.id, seal.outcome, seal.target, seal.walletId, seal.beforeJson, seal.afterJson];
    values.push(sealHash(line.hash, seal));
    return sql`(${sql.join(values)})`;
  });
  await sql`update audit_events set outcome = v.column2, target = v.column3, wallet_id = v.column4,
    before_json = v.column5, after_json = v.column6, sealed_hash = v.column7
    from (values ${sql.join(rows)}) as v
    where audit_events.id = v.column1 and audit_events.outcome = 'pending'`.execute(db);
  return seals.map(() => undefined);
}

interface AuditRow {
  id: string;
  at_ms: string | number | bigint;
  actor_type: AuditActor['type'];
  actor_id: string;
  actor_label: string | null;
  action: string;
  target: string | null;
  wallet_id: string | null;
  before_json: string | null;
  after_json: string | null;
  outcome: 'pending' | 'completed';
}

/** Where a page of the log ends: the next page starts strictly after it (keyset, newest first). */
interface AuditCursor {
  atMs: bigint;
  id: string;
}

/**
 * A cursor is the last row's time and id as text (`<ms>.<id>`): every string of that form is a place in the
 * log, so the published pattern says exactly which cursors are taken (no opaque text a client could get wrong).
 */
export const AUDIT_CURSOR_PATTERN = /^([0-9]{1,16})\.([A-Za-z0-9_]{1,64})$/;

export function encodeAuditCursor(cursor: AuditCursor): string {
  return `${cursor.atMs}.${cursor.id}`;
}

export function decodeAuditCursor(text: string): AuditCursor {
  const match = AUDIT_CURSOR_PATTERN.exec(text);
  assert(match !== null, 'a cursor is checked against its pattern before it is read');
  return { atMs: BigInt(match[1]!), id: match[2]! };
}

/** The part of the log a filter and a cursor keep. */
function auditWhere(filter: AuditFilter, cursor: AuditCursor | null) {
  return [
    filter.walletId === undefined ? sql`` : sql`and wallet_id = ${filter.walletId}`,
    filter.actor === undefined ? sql`` : sql`and actor_id = ${filter.actor}`,
    filter.fromMs === undefined ? sql`` : sql`and at_ms >= ${BigInt(filter.fromMs)}`,
    filter.toMs === undefined ? sql`` : sql`and at_ms <= ${BigInt(filter.toMs)}`,
    cursor === null
      ? sql``
      : sql`and (at_ms < ${cursor.atMs} or (at_ms = ${cursor.atMs} and id < ${cursor.id}))`,
  ];
}

/**
 * The organization's log: its members' writes and what happened to its wallets' transactions. Pages by
 * `page`, or after a cursor (`nextCursor` of the page before), which reads only the rows it answers.
 */
export async function listAudit(
  db: Kysely<Database>,
  scope: { organizationId: string; tenantId: string },
  filter: AuditFilter,
  page: Page & { cursor: AuditCursor | null },
) {
  const where = auditWhere(filter, page.cursor);
  // A refused write changed nothing: its line stays in the chain (verify-audit reads it), not in this view.
  const log = sql`
    select a.id, a.at_ms, a.actor_type, a.actor_id, u.email as actor_label, a.action, a.target, a.wallet_id,
      a.before_json, a.after_json, a.outcome
    from audit_events a left join users u on u.id = a.actor_id
    where a.organization_id = ${scope.organizationId} and a.outcome <> 'refused'
    union all
    select e.id, e.created_at_ms as at_ms,
      case when e.actor like 'key:%' then 'agent' else 'system' end as actor_type,
      case when e.actor like 'key:%' then substr(e.actor, 5) else e.actor end as actor_id,
      k.label as actor_label, 'transaction.' || e.status as action, e.transaction_id as target, t.wallet_id,
      null as before_json, null as after_json, 'completed' as outcome
    from transaction_events e
      join transactions t on t.id = e.transaction_id
      left join api_keys k on e.actor like 'key:%' and k.id = substr(e.actor, 5)
    where t.user_id = ${scope.tenantId} and e.actor not like 'user:%'`;
  const offset = page.cursor === null ? pageOffset(page) : 0;
  const result = await sql<AuditRow & { total_count: string | number | bigint }>`
    select *, count(*) over () as total_count from (${log}) as log
    where 1 = 1 ${where[0]} ${where[1]} ${where[2]} ${where[3]} ${where[4]}
    order by at_ms desc, id desc
    limit ${page.limit} offset ${offset}`.execute(db);
  const items = result.rows.map(auditView);
  const total = result.rows[0] === undefined ? 0 : Number(result.rows[0].total_count);
  const last = result.rows.at(-1);
  const nextCursor =
    last === undefined || result.rows.length < page.limit
      ? null
      : encodeAuditCursor({ atMs: BigInt(last.at_ms), id: last.id });
  return { items, total, page: page.page, limit: page.limit, nextCursor };
}

function auditView(r: AuditRow): AuditView {
  return {
    id: r.id,
    at: isoFromMs(BigInt(r.at_ms)),
    actor: { type: r.actor_type, id: r.actor_id, label: r.actor_label },
    action: r.action,
    outcome: r.outcome === 'pending' ? 'unknown' : 'completed',
    target: r.target,
    walletId: r.wallet_id,
    before: r.before_json === null ? null : JSON.parse(r.before_json),
    after: r.after_json === null ? null : JSON.parse(r.after_json),
  };
}

const VERIFY_PAGE_ROWS = 1_000;

export interface AuditChainReport {
  ok: boolean;
  organizations: number;
  lines: number;
  /** Lines whose outcome was never recorded (a write the service stopped in). */
  unknown: number;
  /**
   * Lines outside the chain: written by an instance of an earlier release still running during a rolling
   * upgrade (it knows no chain). Counted, not a failure: a line added is not a line removed.
   */
  unchained: number;
  heads: Array<{ organizationId: string; seq: bigint; hash: string }>;
  problems: string[];
}

/**
 * Checks every organization's chain a page at a time (domain/organizations/audit-chain.ts) and that its kept head is its last
 * line: a line removed at the end shows as a head past the chain. What `agent-wallet verify-audit` prints.
 */
export async function verifyAuditChains(db: Kysely<Database>): Promise<AuditChainReport> {
  const heads = await db.selectFrom('audit_heads').selectAll().orderBy('organization_id').execute();
  const report: AuditChainReport = {
    ok: true,
    organizations: heads.length,
    lines: 0,
    unknown: 0,
    unchained: 0,
    heads: [],
    problems: [],
  };
  for (const kept of heads) {
    const checked = await verifyOrganization(db, kept.organization_id);
    const head = { seq: BigInt(kept.seq), hash: kept.hash };
    if (checked.head.seq !== head.seq || checked.head.hash !== head.hash)
      checked.problems.push(`the chain ends at ${checked.head.seq}, its kept head is ${head.seq}`);
    report.lines += checked.lines;
    report.unknown += checked.pending;
    report.heads.push({ organizationId: kept.organization_id, ...head });
    report.problems.push(...checked.problems.map((problem) => `${kept.organization_id}: ${problem}`));
  }
  const unchained = await db
    .selectFrom('audit_events')
    .select((eb) => eb.fn.countAll().as('lines'))
    .where('seq', 'is', null)
    .executeTakeFirstOrThrow();
  report.unchained = Number(unchained.lines);
  const orphans = await db
    .selectFrom('audit_events')
    .select('organization_id')
    .distinct()
    .where('seq', 'is not', null)
    .where('organization_id', 'not in', db.selectFrom('audit_heads').select('organization_id'))
    .execute();
  for (const orphan of orphans) report.problems.push(`${orphan.organization_id}: lines without a kept head`);
  report.ok = report.problems.length === 0;
  return report;
}

async function verifyOrganization(db: Kysely<Database>, organizationId: string) {
  let check = chainStart();
  for (;;) {
    const rows = await db
      .selectFrom('audit_events')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('seq', '>', check.head.seq)
      .orderBy('seq')
      .limit(VERIFY_PAGE_ROWS)
      .execute();
    check = checkChainLines(check, rows.map(lineOf));
    if (rows.length < VERIFY_PAGE_ROWS) return check;
  }
}

/** A chained row (read by its seq, so never one of an earlier release's unchained lines). */
function lineOf(row: Selectable<Database['audit_events']>): AuditLine {
  assert(row.seq !== null && row.hash !== null, 'a line read by its number is in the chain');
  return {
    id: row.id,
    organizationId: row.organization_id,
    seq: BigInt(row.seq),
    atMs: BigInt(row.at_ms),
    actorType: row.actor_type,
    actorId: row.actor_id,
    action: row.action,
    outcome: row.outcome,
    target: row.target,
    walletId: row.wallet_id,
    beforeJson: row.before_json,
    afterJson: row.after_json,
    hash: row.hash,
    sealedHash: row.sealed_hash,
  };
}

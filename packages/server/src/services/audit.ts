// The organization's audit log (contract section 9): who changed what. REST writes are recorded by the route
// layer (http/route.ts) with the member who made them; what agents did is already in transaction_events (every
// transaction's creation and each status change names its actor, `key:<id>` for a tool call), so the log reads
// both rather than writing every payment twice. Newest first, paginated, filtered by wallet, actor and time.
import { type Kysely, sql } from 'kysely';
import { isoFromMs } from '../clock.ts';
import { newId } from '../domain/ids.ts';
import type { Database } from '../store/schema.ts';
import { type Page, pageOffset } from './context.ts';

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

export interface AuditEntry {
  organizationId: string;
  actor: { type: 'member'; id: string };
  action: string;
  target: string | null;
  walletId: string | null;
  before: unknown;
  after: unknown;
  nowMs: number;
}

export interface AuditView {
  id: string;
  at: string;
  actor: AuditActor;
  action: string;
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

export async function recordAudit(db: Kysely<Database>, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_events')
    .values({
      id: newId('aud'),
      organization_id: entry.organizationId,
      at_ms: BigInt(entry.nowMs),
      actor_type: entry.actor.type,
      actor_id: entry.actor.id,
      action: entry.action,
      target: entry.target,
      wallet_id: entry.walletId,
      before_json: auditJson(entry.before),
      after_json: auditJson(entry.after),
    })
    .execute();
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
}

/** The organization's log: its members' writes and what happened to its wallets' transactions. */
export async function listAudit(
  db: Kysely<Database>,
  scope: { organizationId: string; tenantId: string },
  filter: AuditFilter,
  page: Page,
) {
  const where = [
    filter.walletId === undefined ? sql`` : sql`and wallet_id = ${filter.walletId}`,
    filter.actor === undefined ? sql`` : sql`and actor_id = ${filter.actor}`,
    filter.fromMs === undefined ? sql`` : sql`and at_ms >= ${BigInt(filter.fromMs)}`,
    filter.toMs === undefined ? sql`` : sql`and at_ms <= ${BigInt(filter.toMs)}`,
  ];
  const log = sql`
    select a.id, a.at_ms, a.actor_type, a.actor_id, u.email as actor_label, a.action, a.target, a.wallet_id,
      a.before_json, a.after_json
    from audit_events a left join users u on u.id = a.actor_id
    where a.organization_id = ${scope.organizationId}
    union all
    select e.id, e.created_at_ms as at_ms,
      case when e.actor like 'key:%' then 'agent' else 'system' end as actor_type,
      case when e.actor like 'key:%' then substr(e.actor, 5) else e.actor end as actor_id,
      k.label as actor_label, 'transaction.' || e.status as action, e.transaction_id as target, t.wallet_id,
      null as before_json, null as after_json
    from transaction_events e
      join transactions t on t.id = e.transaction_id
      left join api_keys k on e.actor like 'key:%' and k.id = substr(e.actor, 5)
    where t.user_id = ${scope.tenantId} and e.actor not like 'user:%'`;
  const result = await sql<AuditRow & { total_count: string | number | bigint }>`
    select *, count(*) over () as total_count from (${log}) as log
    where 1 = 1 ${where[0]} ${where[1]} ${where[2]} ${where[3]}
    order by at_ms desc, id desc
    limit ${page.limit} offset ${pageOffset(page)}`.execute(db);
  const items: AuditView[] = result.rows.map((r) => ({
    id: r.id,
    at: isoFromMs(BigInt(r.at_ms)),
    actor: { type: r.actor_type, id: r.actor_id, label: r.actor_label },
    action: r.action,
    target: r.target,
    walletId: r.wallet_id,
    before: r.before_json === null ? null : JSON.parse(r.before_json),
    after: r.after_json === null ? null : JSON.parse(r.after_json),
  }));
  const total = result.rows[0] === undefined ? 0 : Number(result.rows[0].total_count);
  return { items, total, page: page.page, limit: page.limit };
}

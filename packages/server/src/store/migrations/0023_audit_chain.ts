// The audit log is written ahead and chained (domain/audit-chain.ts): a line's intent is recorded before the
// write runs and its outcome after, and each organization's lines are numbered and hashed over the one before.
// - audit_events.seq, hash, outcome, sealed_hash; audit_heads: each organization's last (seq, hash), the row a
//   new line locks so that two instances never number two lines alike.
// - Every earlier line was written after its write succeeded: it is 'completed', chained in the order it was
//   read (time, then id), a page at a time.
import { type Kysely, sql } from 'kysely';
import {
  AUDIT_GENESIS_HASH,
  type AuditLine,
  linkHash,
  sealHash,
} from '../../domain/organizations/audit-chain.ts';

const BACKFILL_PAGE_ROWS = 500;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('audit_events').addColumn('seq', 'bigint').execute();
  await db.schema.alterTable('audit_events').addColumn('hash', 'text').execute();
  await db.schema
    .alterTable('audit_events')
    .addColumn('outcome', 'text', (c) => c.notNull().defaultTo('completed'))
    .execute();
  await db.schema.alterTable('audit_events').addColumn('sealed_hash', 'text').execute();
  await db.schema
    .createTable('audit_heads')
    .addColumn('organization_id', 'text', (c) => c.primaryKey())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .execute();
  await backfill(db);
  await db.schema
    .createIndex('audit_events_org_seq_idx')
    .on('audit_events')
    .columns(['organization_id', 'seq'])
    .unique()
    .execute();
}

interface EarlierRow {
  id: string;
  organization_id: string;
  at_ms: string | number | bigint;
  actor_type: string;
  actor_id: string;
  action: string;
  target: string | null;
  wallet_id: string | null;
  before_json: string | null;
  after_json: string | null;
}

async function backfill(db: Kysely<unknown>): Promise<void> {
  const heads = new Map<string, { seq: bigint; hash: string }>();
  let after: { org: string; at: bigint; id: string } | null = null;
  for (;;) {
    const from: ReturnType<typeof sql> =
      after === null
        ? sql``
        : sql`where (organization_id > ${after.org}) or (organization_id = ${after.org} and (at_ms > ${after.at} or (at_ms = ${after.at} and id > ${after.id})))`;
    const page =
      await sql<EarlierRow>`select id, organization_id, at_ms, actor_type, actor_id, action, target,
        wallet_id, before_json, after_json from audit_events ${from}
      order by organization_id, at_ms, id limit ${BACKFILL_PAGE_ROWS}`.execute(db);
    for (const row of page.rows) {
      const head = heads.get(row.organization_id) ?? { seq: 0n, hash: AUDIT_GENESIS_HASH };
      const line = chained(row, head);
      await sql`update audit_events set seq = ${line.seq}, hash = ${line.hash}, sealed_hash = ${line.sealedHash}
        where id = ${row.id}`.execute(db);
      heads.set(row.organization_id, { seq: line.seq, hash: line.hash });
    }
    const last: EarlierRow | undefined = page.rows.at(-1);
    if (last === undefined || page.rows.length < BACKFILL_PAGE_ROWS) break;
    after = { org: last.organization_id, at: BigInt(last.at_ms), id: last.id };
  }
  for (const [organizationId, head] of heads) {
    await sql`insert into audit_heads (organization_id, seq, hash) values (${organizationId}, ${head.seq}, ${head.hash})`.execute(
      db,
    );
  }
}

function chained(row: EarlierRow, head: { seq: bigint; hash: string }): AuditLine {
  const intent = {
    id: row.id,
    organizationId: row.organization_id,
    seq: head.seq + 1n,
    atMs: BigInt(row.at_ms),
    actorType: row.actor_type,
    actorId: row.actor_id,
    action: row.action,
  };
  const hash = linkHash(head.hash, intent);
  const seal = {
    outcome: 'completed' as const,
    target: row.target,
    walletId: row.wallet_id,
    beforeJson: row.before_json,
    afterJson: row.after_json,
  };
  return { ...intent, ...seal, hash, sealedHash: sealHash(hash, seal) };
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('audit_events_org_seq_idx').execute();
  await db.schema.dropTable('audit_heads').execute();
  for (const column of ['sealed_hash', 'outcome', 'hash', 'seq']) {
    await db.schema.alterTable('audit_events').dropColumn(column).execute();
  }
}

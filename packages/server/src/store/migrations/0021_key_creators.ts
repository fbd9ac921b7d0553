// Who made each API key and OAuth connection (contract section 9): removing a member ends the keys and connections
// they made (routes/members/remove.ts), so a key must name its maker. api_keys.created_by is the member's user id:
// whoever created or rotated an API key (a rotation's new key is its rotator's: they were shown it), and for an
// OAuth connection whoever allowed the client. New rows always carry it. Rows written before it are filled from
// what the database already knows, most certain first, and never guessed:
// 1. a connection: the member its authorization code names (oauth_codes.member_id; codes are purged some days
//    after they expire, so older connections fall to rule 3);
// 2. an API key: the member the audit log names for its creation (createKey's target is the new key; rotateKey's
//    answer, stored in after_json, carries the new key's id);
// 3. anything older than the organization's first accepted invitation: its founder (organizations.scope_user_id,
//    which is the rows' user_id), the only person who could have made it.
// What none of them says stays null: no removal ends it by itself, and an owner revokes it by hand.
import { type Kysely, sql } from 'kysely';

/** Audit rows read per round of rule 2: the backfill holds a bounded page in memory, whatever the log's size. */
const AUDIT_PAGE_ROWS = 500;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('created_by', 'text').execute();
  // A removal finds the keys its member made by this index.
  await db.schema.createIndex('api_keys_created_by_idx').on('api_keys').column('created_by').execute();
  await sql`update api_keys set created_by = (
      select c.member_id from oauth_codes c where c.key_id = api_keys.id
    ) where type = 'oauth'`.execute(db);
  await fillFromAudit(db);
  await sql`update api_keys set created_by = user_id
    where created_by is null
      and not exists (
        select 1 from invitations i inner join organizations o on o.id = i.organization_id
        where o.scope_user_id = api_keys.user_id
          and i.accepted_at_ms is not null
          and i.accepted_at_ms <= api_keys.created_at_ms
      )`.execute(db);
}

/** Rule 2, page by page (audit ids grow with time): the member the log names for each key's creation. */
async function fillFromAudit(db: Kysely<unknown>): Promise<void> {
  let afterId = '';
  for (;;) {
    const { rows } = await sql<{
      id: string;
      action: string;
      actor_id: string;
      target: string | null;
      after_json: string | null;
    }>`
      select id, action, actor_id, target, after_json from audit_events
      where action in ('createKey', 'rotateKey') and actor_type = 'member' and id > ${afterId}
      order by id limit ${AUDIT_PAGE_ROWS}`.execute(db);
    for (const row of rows) {
      const keyId = row.action === 'createKey' ? row.target : newKeyOf(row.after_json);
      if (keyId === null) continue;
      await sql`update api_keys set created_by = ${row.actor_id}
        where id = ${keyId} and created_by is null and type = 'api_key'`.execute(db);
    }
    if (rows.length < AUDIT_PAGE_ROWS) return;
    afterId = rows[rows.length - 1]!.id;
  }
}

/** The new key's id in a rotation's recorded answer (`{id, prefix, …, previousKey}`); null if it is not there. */
function newKeyOf(afterJson: string | null): string | null {
  if (afterJson === null) return null;
  try {
    const id = (JSON.parse(afterJson) as { id?: unknown } | null)?.id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('api_keys_created_by_idx').execute();
  await db.schema.alterTable('api_keys').dropColumn('created_by').execute();
}

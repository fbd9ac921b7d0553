// Organizations (contract section 9): several humans on one account, with roles, invitations, approvals by more
// than one person and an audit log. Upgrade in place: every existing user becomes the owner of a one-person
// organization and nothing else changes. The organization's resources (wallets, keys, policies, webhooks,
// transactions...) stay keyed by their `user_id` column, which from now on names the organization's founding
// user (organizations.scope_user_id): no table is rewritten, so an upgrade is a few inserts, not a copy.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // The user_id every resource of the organization carries (its founder); never changes.
    .addColumn('scope_user_id', 'text', (c) => c.notNull().unique().references('users.id'))
    .addColumn('require_mfa', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .execute();

  // One organization per login: a person in two organizations signs up twice (two emails).
  await db.schema
    .createTable('members')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id'))
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('joined_at_ms', 'bigint', (c) => c.notNull())
    .addCheckConstraint('members_role_check', sql`role in ('owner', 'admin', 'approver', 'viewer')`)
    .execute();
  await db.schema.createIndex('members_org_idx').on('members').column('organization_id').execute();

  // A single-use token (only its SHA-256 is kept), 7 days.
  await db.schema
    .createTable('invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('token_digest', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('accepted_at_ms', 'bigint')
    .addColumn('revoked_at_ms', 'bigint')
    .execute();
  await db.schema.createIndex('invitations_org_idx').on('invitations').column('organization_id').execute();

  // Every REST write with its member; tool calls are read from transaction_events (they record the key).
  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('at_ms', 'bigint', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text')
    .addColumn('wallet_id', 'text')
    .addColumn('before_json', 'text')
    .addColumn('after_json', 'text')
    .execute();
  await db.schema
    .createIndex('audit_events_org_at_idx')
    .on('audit_events')
    .columns(['organization_id', 'at_ms', 'id'])
    .execute();

  // Who approved a payment held for several approvers; one row per member (an approver approves once).
  await db.schema
    .createTable('transaction_approvals')
    .addColumn('transaction_id', 'text', (c) => c.notNull())
    .addColumn('member_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('at_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('transaction_approvals_pk', ['transaction_id', 'member_id'])
    .execute();
  // How many distinct approvals a held payment needs; null (every row before this) means one.
  await db.schema.alterTable('transactions').addColumn('approvals_required', 'bigint').execute();

  // Each existing user: the owner of a one-person organization (ids derived, so the upgrade is one statement).
  await sql`insert into organizations (id, scope_user_id, require_mfa, created_at_ms)
    select 'org_' || substr(id, 5), id, 0, created_at_ms from users`.execute(db);
  await sql`insert into members (user_id, organization_id, role, joined_at_ms)
    select id, 'org_' || substr(id, 5), 'owner', created_at_ms from users`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('transactions').dropColumn('approvals_required').execute();
  for (const table of ['transaction_approvals', 'audit_events', 'invitations', 'members', 'organizations']) {
    await db.schema.dropTable(table).execute();
  }
}

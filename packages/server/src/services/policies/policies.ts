// Spending policies per agent wallet: CRUD for the owner, and the stored params as rules (ruleOf) for the batch
// deciders and the balance views, which read policies in their own set-based queries. Params are stored as the
// normalised wire form: amounts "10.500000", addresses lower-case.

import { type Kysely, type RawBuilder, type Selectable, sql } from 'kysely';
import { newId } from '../../domain/ids.ts';
import { decimalToMicros } from '../../domain/money.ts';
import type { Period } from '../../domain/policies/calendar-period.ts';
import type { ActivePolicy, PolicyRule, PolicyType, WindowName } from '../../domain/policies/policies.ts';
import { type Day, parseClock } from '../../domain/time-window.ts';
import { invalid, notFound } from '../../errors.ts';
import type { Dialect } from '../../store/db.ts';
import { lockOwnerRow } from '../../store/locks.ts';
import type { Database, PoliciesTable } from '../../store/schema.ts';
import { type Page, pageOf, type ServiceContext } from '../context.ts';
import { ownedWallet } from '../wallets/wallet-rows.ts';
import {
  listPolicyChanges,
  type PolicyChangeView,
  recordPolicyChange,
  updateAction,
} from './policy-changes.ts';
import { type PolicyView, policyView } from './policy-view.ts';

export const POLICIES_PER_WALLET_MAX = 50;
export const ALLOWLIST_ADDRESSES_MAX = 1_000;

/** Params as stored and shown: normalised wire form (amounts "10.500000", lower-case addresses), validated. */
export type PolicyParams = Record<string, unknown>;

type PolicyRow = Selectable<PoliciesTable>;

export function storedParams(params: PolicyParams): string {
  return JSON.stringify(params);
}

interface StoredParams {
  limit?: string;
  amount?: string;
  approvers?: number;
  period?: Period;
  denials?: number;
  addresses?: string[];
  hosts?: string[];
  window?: WindowName;
  count?: number;
  days?: Day[];
  start?: string;
  end?: string;
  timezone?: string;
}

/** Policies read as JSON by another query: [[id, type, params_json], …], parsed already by pg, a string on SQLite. */
export type PoliciesJson = string | Array<[string, string, string]> | null;

/**
 * SQL for a wallet's active policies (of `types`, or all) as PoliciesJson, in the order they were made: a column
 * of another read, so that they cost no statement of their own.
 */
export function activePoliciesJsonSql(
  dialect: Dialect,
  walletId: RawBuilder<unknown>,
  types?: readonly PolicyType[],
): RawBuilder<PoliciesJson> {
  const tuple =
    dialect === 'postgres'
      ? sql`json_build_array(p.id, p.type, p.params_json)`
      : sql`json_array(p.id, p.type, p.params_json)`;
  const aggregate = dialect === 'postgres' ? sql`json_agg` : sql`json_group_array`;
  const ofTypes =
    types === undefined ? sql`` : sql`and p.type in (${sql.join(types.map((t) => sql.lit(t)))})`;
  return sql`(select ${aggregate}(${tuple} order by p.created_at_ms, p.id) from policies p
    where p.wallet_id = ${walletId} and p.active = 1 ${ofTypes})`;
}

export function policiesFromJson(value: PoliciesJson): ActivePolicy[] {
  if (value === null) return [];
  const rows = typeof value === 'string' ? (JSON.parse(value) as Array<[string, string, string]>) : value;
  // SQLite's json_group_array over no rows is '[]'; a row of nulls never occurs (the columns are NOT NULL).
  return rows.map(([id, type, paramsJson]) => ({ id, rule: ruleOf(type as PolicyType, paramsJson) }));
}

export function ruleOf(type: PolicyType, paramsJson: string): PolicyRule {
  const p = JSON.parse(paramsJson) as StoredParams;
  switch (type) {
    case 'spend_cap_per_tx':
    case 'spend_cap_daily':
    case 'spend_cap_total':
      return { type, limitMicros: decimalToMicros(p.limit!) };
    case 'address_allowlist':
    case 'address_blocklist':
      return { type, addresses: new Set(p.addresses) };
    case 'merchant_allowlist':
    case 'merchant_blocklist':
      return { type, hosts: new Set(p.hosts) };
    case 'require_approval_above':
      return { type, amountMicros: decimalToMicros(p.amount!) };
    case 'require_approvals':
      return { type, amountMicros: decimalToMicros(p.amount!), approvers: p.approvers! };
    case 'spend_cap_period':
      return { type, limitMicros: decimalToMicros(p.limit!), period: p.period!, timezone: p.timezone! };
    case 'auto_freeze':
      return { type, denials: p.denials!, window: p.window! };
    case 'spend_cap_window':
    case 'recipient_cap':
      return { type, limitMicros: decimalToMicros(p.limit!), window: p.window! };
    case 'tx_count_cap':
      return { type, count: p.count!, window: p.window! };
    case 'time_window':
      return {
        type,
        days: new Set(p.days),
        startMinute: parseClock(p.start!)!,
        endMinute: parseClock(p.end!)!,
        timezone: p.timezone!,
      };
  }
}

export interface PolicyService {
  create(userId: string, walletId: string, type: PolicyType, params: PolicyParams): Promise<PolicyView>;
  list(userId: string, walletId: string, page: Page): Promise<{ items: PolicyView[]; total: number }>;
  get(userId: string, walletId: string, policyId: string): Promise<PolicyView>;
  update(
    userId: string,
    walletId: string,
    policyId: string,
    change: { params?: PolicyParams; active?: boolean },
  ): Promise<PolicyView>;
  remove(userId: string, walletId: string, policyId: string): Promise<{ id: string; deleted: true }>;
  /** The wallet's policy audit trail, newest first. */
  changes(
    userId: string,
    walletId: string,
    page: Page,
  ): Promise<{ items: PolicyChangeView[]; total: number }>;
}

async function policyRow(trx: Kysely<Database>, policyId: string): Promise<PolicyRow> {
  return trx.selectFrom('policies').selectAll().where('id', '=', policyId).executeTakeFirstOrThrow();
}

export function createPolicyService(ctx: ServiceContext): PolicyService {
  const { store, writer, clock } = ctx;

  async function ownedPolicy(userId: string, walletId: string, policyId: string): Promise<PolicyRow> {
    const wallet = await ownedWallet(store.db, userId, walletId, 'agent');
    const row = await store.db
      .selectFrom('policies')
      .selectAll()
      .where('id', '=', policyId)
      .where('wallet_id', '=', wallet.id)
      .executeTakeFirst();
    if (row === undefined) throw notFound('policy');
    return row;
  }

  async function create(userId: string, walletId: string, type: PolicyType, params: PolicyParams) {
    const wallet = await ownedWallet(store.db, userId, walletId, 'agent');
    const nowMs = BigInt(clock.nowMs());
    const row: PolicyRow = {
      id: newId('pol'),
      wallet_id: wallet.id,
      user_id: userId,
      type,
      params_json: storedParams(params),
      active: 1n,
      created_at_ms: nowMs,
      updated_at_ms: nowMs,
    };
    await writer.run((trx) => insertPolicy(trx, row, `user:${userId}`));
    return policyView(row);
  }

  async function list(userId: string, walletId: string, page: Page) {
    const wallet = await ownedWallet(store.db, userId, walletId, 'agent');
    const base = store.db.selectFrom('policies').where('wallet_id', '=', wallet.id);
    const { rows, total } = await pageOf(base, page);
    return { items: rows.map(policyView), total };
  }

  async function update(
    userId: string,
    walletId: string,
    policyId: string,
    change: { params?: PolicyParams; active?: boolean },
  ) {
    await ownedPolicy(userId, walletId, policyId);
    const nowMs = clock.nowMs();
    const after = await writer.run((trx) => updatePolicy(trx, policyId, change, `user:${userId}`, nowMs));
    return policyView(after);
  }

  async function remove(userId: string, walletId: string, policyId: string) {
    await ownedPolicy(userId, walletId, policyId);
    const nowMs = clock.nowMs();
    await writer.run((trx) => deletePolicy(trx, policyId, `user:${userId}`, nowMs));
    return { id: policyId, deleted: true as const };
  }

  async function changes(userId: string, walletId: string, page: Page) {
    const wallet = await ownedWallet(store.db, userId, walletId, 'agent');
    return listPolicyChanges(store.db, wallet.id, page);
  }

  return {
    create,
    list,
    get: async (userId, walletId, policyId) => policyView(await ownedPolicy(userId, walletId, policyId)),
    update,
    remove,
    changes,
  };
}

/** In the writer's transaction: the policy deleted, with its history line. */
async function deletePolicy(
  trx: Kysely<Database>,
  policyId: string,
  actor: string,
  nowMs: number,
): Promise<void> {
  const before = await policyRow(trx, policyId);
  await trx.deleteFrom('policies').where('id', '=', policyId).execute();
  await recordPolicyChange(trx, { action: 'deleted', actor, before, after: null, nowMs });
}

/** In the writer's transaction, under the wallet's lock: the count limit holds under concurrent creates. */
async function insertPolicy(trx: Kysely<Database>, row: PolicyRow, actor: string): Promise<void> {
  await lockOwnerRow(trx, 'wallets', row.wallet_id);
  const count = await trx
    .selectFrom('policies')
    .select((eb) => eb.fn.countAll<bigint>().as('n'))
    .where('wallet_id', '=', row.wallet_id)
    .executeTakeFirstOrThrow();
  if (Number(count.n) >= POLICIES_PER_WALLET_MAX) {
    throw invalid(`an agent wallet can have at most ${POLICIES_PER_WALLET_MAX} policies`);
  }
  await trx.insertInto('policies').values(row).execute();
  await recordPolicyChange(trx, {
    action: 'created',
    actor,
    before: null,
    after: row,
    nowMs: Number(row.created_at_ms),
  });
}

/** In the writer's transaction: the change and its line in the policy's history, before and after. */
async function updatePolicy(
  trx: Kysely<Database>,
  policyId: string,
  change: { params?: PolicyParams; active?: boolean },
  actor: string,
  nowMs: number,
): Promise<PolicyRow> {
  const before = await policyRow(trx, policyId);
  await trx
    .updateTable('policies')
    .set({
      ...(change.params === undefined ? {} : { params_json: storedParams(change.params) }),
      ...(change.active === undefined ? {} : { active: change.active ? 1n : 0n }),
      updated_at_ms: BigInt(nowMs),
    })
    .where('id', '=', policyId)
    .execute();
  const updated = await policyRow(trx, policyId);
  await recordPolicyChange(trx, {
    action: updateAction(before, change),
    actor,
    before,
    after: updated,
    nowMs,
  });
  return updated;
}

// The policy audit trail: every create, update, pause, resume and delete with who and when, and the policy before
// and after, written in the same database transaction as the change itself.
import type { Kysely, Selectable } from 'kysely';
import { isoFromMs } from '../../clock.ts';
import { newId } from '../../domain/ids.ts';
import type { Database, PoliciesTable, PolicyAction, PolicyChangesTable } from '../../store/schema.ts';
import { type Page, pageOf } from '../context.ts';
import { type PolicyView, policyView } from './policy-view.ts';

export interface PolicyChangeView {
  id: string;
  policyId: string;
  action: PolicyAction;
  actor: string;
  before: PolicyView | null;
  after: PolicyView | null;
  createdAt: string;
}

/** Pure: what an update did, in the audit's words (a pause or resume alone is named as such). */
export function updateAction(
  before: { active: bigint },
  change: { params?: unknown; active?: boolean },
): PolicyAction {
  if (
    change.params === undefined &&
    change.active !== undefined &&
    (before.active === 1n) !== change.active
  ) {
    return change.active ? 'resumed' : 'paused';
  }
  return 'updated';
}

export async function recordPolicyChange(
  trx: Kysely<Database>,
  change: {
    action: PolicyAction;
    actor: string;
    before: Selectable<PoliciesTable> | null;
    after: Selectable<PoliciesTable> | null;
    nowMs: number;
  },
): Promise<void> {
  const policy = change.after ?? change.before;
  if (policy === null) throw new Error('a policy change names a policy');
  await trx
    .insertInto('policy_changes')
    .values({
      id: newId('pch'),
      wallet_id: policy.wallet_id,
      user_id: policy.user_id,
      policy_id: policy.id,
      action: change.action,
      actor: change.actor,
      before_json: change.before === null ? null : JSON.stringify(policyView(change.before)),
      after_json: change.after === null ? null : JSON.stringify(policyView(change.after)),
      created_at_ms: BigInt(change.nowMs),
    })
    .execute();
}

export async function listPolicyChanges(
  db: Kysely<Database>,
  walletId: string,
  page: Page,
): Promise<{ items: PolicyChangeView[]; total: number }> {
  const base = db.selectFrom('policy_changes').where('wallet_id', '=', walletId);
  const { rows, total } = await pageOf(base, page);
  return { items: rows.map(changeView), total };
}

function changeView(row: Selectable<PolicyChangesTable>): PolicyChangeView {
  return {
    id: row.id,
    policyId: row.policy_id,
    action: row.action,
    actor: row.actor,
    before: row.before_json === null ? null : (JSON.parse(row.before_json) as PolicyView),
    after: row.after_json === null ? null : (JSON.parse(row.after_json) as PolicyView),
    createdAt: isoFromMs(row.created_at_ms),
  };
}

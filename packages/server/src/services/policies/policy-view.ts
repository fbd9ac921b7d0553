// A policy as the API shows it, for the policy service and its change history (policy-changes.ts), which
// records the view before and after each change.
import type { Selectable } from 'kysely';
import { isoFromMs } from '../../clock.ts';
import { toChecksumAddress } from '../../domain/address.ts';
import type { PolicyType } from '../../domain/policies/policies.ts';
import type { PoliciesTable } from '../../store/schema.ts';

export interface PolicyView {
  id: string;
  walletId: string;
  type: PolicyType;
  params: Record<string, unknown>;
  active: boolean;
  createdAt: string;
  updatedAt: string;
}

export function policyView(row: Selectable<PoliciesTable>): PolicyView {
  const params = JSON.parse(row.params_json) as Record<string, unknown>;
  if (Array.isArray(params.addresses))
    params.addresses = (params.addresses as string[]).map(toChecksumAddress);
  return {
    id: row.id,
    walletId: row.wallet_id,
    type: row.type as PolicyType,
    params,
    active: row.active === 1n,
    createdAt: isoFromMs(row.created_at_ms),
    updatedAt: isoFromMs(row.updated_at_ms),
  };
}

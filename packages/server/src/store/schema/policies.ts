// Tables of policies, their change log and the alerts on spending.

export interface PoliciesTable {
  id: string;
  wallet_id: string;
  user_id: string;
  type: string;
  params_json: string;
  active: bigint;
  created_at_ms: bigint;
  updated_at_ms: bigint;
}

export type PolicyAction = 'created' | 'updated' | 'paused' | 'resumed' | 'deleted';

export interface PolicyChangesTable {
  id: string;
  wallet_id: string;
  user_id: string;
  policy_id: string;
  action: PolicyAction;
  actor: string;
  before_json: string | null;
  after_json: string | null;
  created_at_ms: bigint;
}

export interface AlertsTable {
  id: string;
  user_id: string;
  wallet_id: string;
  type: 'balance_below' | 'cap_used' | 'treasury_at_risk';
  params_json: string;
  /**
   * Keys of what fired and is not re-armed yet: ["balance"], ["<policyId>\n<window or period start>"] or
   * ["treasury"].
   */
  fired_json: string;
  created_at_ms: bigint;
}

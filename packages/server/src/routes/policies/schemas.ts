import { z } from 'zod';
import { POLICY_TYPES, type PolicyType } from '../../domain/policies.ts';
import { invalid } from '../../errors.ts';
import { addressSchema, amountSchema, describeIssues, idSchema } from '../../http/schemas.ts';
import { ALLOWLIST_ADDRESSES_MAX, type PolicyParams } from '../../services/policies.ts';

export const policyParams = z.strictObject({ walletId: idSchema, policyId: idSchema });

const capParams = z.strictObject({ limit: amountSchema });
const PARAMS_BY_TYPE: Record<PolicyType, z.ZodType> = {
  spend_cap_per_tx: capParams,
  spend_cap_daily: capParams,
  spend_cap_total: capParams,
  address_allowlist: z.strictObject({
    addresses: z.array(addressSchema).min(1).max(ALLOWLIST_ADDRESSES_MAX),
  }),
  require_approval_above: z.strictObject({ amount: amountSchema }),
};

/** Documentation of `params`; validation is per type in parsePolicyParams. */
export const paramsDocumentation = z.unknown().meta({
  description:
    'spend_cap_per_tx / spend_cap_daily / spend_cap_total: {limit}; address_allowlist: {addresses: [...]}; ' +
    'require_approval_above: {amount}. Amounts are decimal strings.',
  type: 'object',
});

export const policyTypeSchema = z.enum(POLICY_TYPES);

/** Validates params for the policy type and converts them (micro-units, lower-case, de-duplicated addresses). */
export function parsePolicyParams(type: PolicyType, raw: unknown): PolicyParams {
  if (raw === undefined) throw invalid('params is required');
  const parsed = PARAMS_BY_TYPE[type].safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({ ...issue, path: ['params', ...issue.path] }));
    throw invalid(describeIssues(issues, 'params'));
  }
  const value = parsed.data as { limit?: bigint; amount?: bigint; addresses?: string[] };
  if (value.limit !== undefined) return { limitMicros: value.limit };
  if (value.amount !== undefined) return { amountMicros: value.amount };
  return { addresses: [...new Set(value.addresses)] };
}

export const policyView = z.object({
  id: z.string(),
  walletId: z.string(),
  type: policyTypeSchema,
  params: z.record(z.string(), z.unknown()),
  active: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

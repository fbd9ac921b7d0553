import { z } from 'zod';
import { formatMicros } from '../../domain/money.ts';
import { PERIODS } from '../../domain/policies/calendar-period.ts';
import { POLICY_TYPES, type PolicyType, WINDOW_NAMES } from '../../domain/policies/policies.ts';
import { DAYS, isTimezone, parseClock } from '../../domain/time-window.ts';
import { invalid } from '../../errors.ts';
import { addressSchema, amountSchema, describeIssues, idSchema } from '../../http/schemas.ts';
import { ALLOWLIST_ADDRESSES_MAX, type PolicyParams } from '../../services/policies/policies.ts';

export const policyParams = z.strictObject({ walletId: idSchema, policyId: idSchema });

const micros = amountSchema.transform((value) => formatMicros(value));
const windowSchema = z.enum(WINDOW_NAMES, { error: `window must be one of ${WINDOW_NAMES.join(', ')}` });
const addressList = z
  .array(addressSchema)
  .min(1)
  .max(ALLOWLIST_ADDRESSES_MAX)
  .transform((addresses) => [...new Set(addresses)]);
/** A host a seller's URL may have, or `*.` and a domain for every subdomain of it; lower-cased, each once. */
const HOST_PATTERN =
  '^(?:\\*\\.)?[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$';
const hostList = z
  .array(
    z
      .string()
      .max(253)
      .regex(
        new RegExp(HOST_PATTERN),
        'must be a host name (api.example.com) or *. and a domain (*.example.com)',
      )
      .transform((host) => host.toLowerCase()),
  )
  .min(1)
  .max(ALLOWLIST_ADDRESSES_MAX)
  .transform((hosts) => [...new Set(hosts)]);
const clock = z
  .string()
  .refine((value) => parseClock(value) !== null, 'must be HH:MM between 00:00 and 23:59')
  .meta({ pattern: '^(?:[01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM, 00:00 to 23:59' });
/** What Intl may know as a zone: a name of letters, digits and _ + - / (Etc/GMT+5), or an offset (+01:00). */
const TIMEZONE_JSON_PATTERN = '^(?:[A-Za-z][A-Za-z0-9_+/-]*|[+-][0-9]{2}(?::?[0-9]{2})?)$';
/** require_approvals: how many distinct members must approve (contract section 9). */
export const APPROVERS_MIN = 2;
export const APPROVERS_MAX = 5;
/** Most payments a tx_count_cap may allow in its window: a bound, like every other. */
export const TX_COUNT_CAP_MAX = 1_000_000;

const timezoneSchema = z
  .string()
  .refine(isTimezone, 'must be an IANA timezone such as Europe/Berlin or UTC')
  .meta({
    minLength: 1,
    maxLength: 64,
    pattern: TIMEZONE_JSON_PATTERN,
    description: 'an IANA time zone this server knows (e.g. Europe/Berlin, UTC; any case), else 400',
  });
/** auto_freeze: the most denials it may wait for (a bound, like every other). */
export const AUTO_FREEZE_DENIALS_MAX = 1_000;

const capParams = z.strictObject({ limit: micros });
const PARAMS_BY_TYPE: Record<PolicyType, z.ZodType> = {
  spend_cap_per_tx: capParams,
  spend_cap_daily: capParams,
  spend_cap_total: capParams,
  address_allowlist: z.strictObject({ addresses: addressList }),
  address_blocklist: z.strictObject({ addresses: addressList }),
  merchant_allowlist: z.strictObject({ hosts: hostList }),
  merchant_blocklist: z.strictObject({ hosts: hostList }),
  require_approval_above: z.strictObject({ amount: micros }),
  require_approvals: z.strictObject({
    amount: micros,
    approvers: z.number().int().min(APPROVERS_MIN).max(APPROVERS_MAX),
  }),
  spend_cap_window: z.strictObject({ limit: micros, window: windowSchema }),
  spend_cap_period: z.strictObject({ limit: micros, period: z.enum(PERIODS), timezone: timezoneSchema }),
  auto_freeze: z.strictObject({
    denials: z.number().int().min(1).max(AUTO_FREEZE_DENIALS_MAX),
    window: windowSchema,
  }),
  recipient_cap: z.strictObject({ limit: micros, window: windowSchema }),
  tx_count_cap: z.strictObject({
    count: z.number().int().min(1).max(TX_COUNT_CAP_MAX),
    window: windowSchema,
  }),
  time_window: z
    .strictObject({
      days: z
        .array(z.enum(DAYS, { error: `days must be among ${DAYS.join(', ')}` }))
        .min(1, 'days must name at least one day')
        .max(7),
      start: clock,
      end: clock,
      timezone: timezoneSchema,
    })
    .refine((p) => p.start !== p.end, { message: 'start and end must differ', path: ['end'] })
    .meta({ description: 'start and end must differ (else 400); end before start wraps midnight' })
    .transform((p) => ({ ...p, days: DAYS.filter((d) => p.days.includes(d)) })),
};

/** The JSON Schema of one policy type's params, as a client sends them. */
function paramsJsonSchema(type: PolicyType): Record<string, unknown> {
  const schema = z.toJSONSchema(PARAMS_BY_TYPE[type], { io: 'input', unrepresentable: 'any' });
  const { $schema: _, ...rest } = schema as Record<string, unknown>;
  return { title: `${type} params`, ...rest };
}

const PARAMS_DESCRIPTION =
  'spend_cap_per_tx / spend_cap_daily / spend_cap_total: {limit}; address_allowlist / address_blocklist: ' +
  '{addresses: [...]} (1 to 1,000); merchant_allowlist / merchant_blocklist: {hosts: [...]} (1 to 1,000 hosts such as ' +
  '"api.example.com", or "*.example.com" for its subdomains; they judge paid requests, x402 and MPP, only); ' +
  'require_approval_above: {amount}; require_approvals: {amount, approvers} ' +
  '(approvers 2 to 5 distinct members); spend_cap_period: {limit, period: "day"|"week"|"month", timezone} ' +
  '(a calendar budget, weeks from Monday); auto_freeze: {denials, window} (1 to 1,000 denials); spend_cap_window / recipient_cap: ' +
  '{limit, window}; tx_count_cap: {count, window}; time_window: {days: ["mon",…,"sun"], start: "HH:MM", ' +
  'end: "HH:MM", timezone}. Amounts are decimal strings; window is one of "1h", "24h", "7d", "30d".';

/** Documentation of `params`: any of the types' schemas (validation is per type in parsePolicyParams). */
export const paramsDocumentation = z.unknown().meta({
  description: PARAMS_DESCRIPTION,
  anyOf: POLICY_TYPES.map(paramsJsonSchema),
});

/**
 * Documentation of a new policy's body: one branch per type, each pairing `type` with that type's params, so the
 * document says exactly which params go with which type (validation: `type`, then parsePolicyParams).
 */
export const newPolicyDocumentation = z.unknown().meta({
  description: `A policy type and its params. ${PARAMS_DESCRIPTION}`,
  oneOf: POLICY_TYPES.map((type) => ({
    title: `${type} policy`,
    type: 'object',
    properties: { type: { type: 'string', const: type }, params: paramsJsonSchema(type) },
    required: ['type', 'params'],
    additionalProperties: false,
  })),
});

export const policyTypeSchema = z.enum(POLICY_TYPES);

/** Validates params for the policy type and normalises them (amounts to 6 places, addresses lower-case, unique). */
export function parsePolicyParams(type: PolicyType, raw: unknown): PolicyParams {
  if (raw === undefined) throw invalid('params is required');
  const parsed = PARAMS_BY_TYPE[type].safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({ ...issue, path: ['params', ...issue.path] }));
    throw invalid(describeIssues(issues, 'params'));
  }
  return parsed.data as PolicyParams;
}

/** A policy's params as answers show them: amounts with 6 places, addresses EIP-55, days in week order. */
const amountView = z.string().describe('decimal string with 6 places');
const capView = z.object({ limit: amountView });
const listView = z.object({ addresses: z.array(z.string()) });
const hostsView = z.object({ hosts: z.array(z.string()) });
const windowCapView = z.object({ limit: amountView, window: z.enum(WINDOW_NAMES) });
const PARAMS_VIEW_BY_TYPE: Record<PolicyType, z.ZodObject> = {
  spend_cap_per_tx: capView,
  spend_cap_daily: capView,
  spend_cap_total: capView,
  address_allowlist: listView,
  address_blocklist: listView,
  merchant_allowlist: hostsView,
  merchant_blocklist: hostsView,
  require_approval_above: z.object({ amount: amountView }),
  require_approvals: z.object({ amount: amountView, approvers: z.number().int() }),
  spend_cap_window: windowCapView,
  spend_cap_period: z.object({ limit: amountView, period: z.enum(PERIODS), timezone: z.string() }),
  auto_freeze: z.object({ denials: z.number().int(), window: z.enum(WINDOW_NAMES) }),
  recipient_cap: windowCapView,
  tx_count_cap: z.object({ count: z.number().int(), window: z.enum(WINDOW_NAMES) }),
  time_window: z.object({
    days: z.array(z.enum(DAYS)),
    start: z.string(),
    end: z.string(),
    timezone: z.string(),
  }),
};

/** A policy as every answer shows it: a union discriminated by `type`, each with its own typed params. */
export const policyView = z.discriminatedUnion(
  'type',
  POLICY_TYPES.map((type) =>
    z.object({
      id: z.string(),
      walletId: z.string(),
      type: z.literal(type),
      params: PARAMS_VIEW_BY_TYPE[type],
      active: z.boolean(),
      createdAt: z.string(),
      updatedAt: z.string(),
    }),
  ) as unknown as [z.ZodObject, ...z.ZodObject[]],
);

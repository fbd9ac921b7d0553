import { z } from 'zod';
import { ALERT_TYPES } from '../../domain/alerts/alerts.ts';
import { amountSchema, idSchema } from '../../http/schemas.ts';
import { timestamp } from '../../http/views.ts';

export const alertParams = z.strictObject({ id: idSchema });

const watchedWallet = idSchema
  .optional()
  .describe('the wallet watched: an agent wallet, or the master wallet (balance_below without walletId)');
const PARAMS = {
  amount: amountSchema.describe(
    'balance_below: the balance it watches for falling below; treasury_at_risk: the atRisk it watches for rising above',
  ),
  percent: z
    .number()
    .int()
    .min(1)
    .max(100)
    .describe('cap_used: the share of any spending cap (1–100) that fires it'),
};

export const newAlertBody = z.strictObject({
  type: z.enum(ALERT_TYPES),
  walletId: watchedWallet,
  params: z.strictObject({ amount: PARAMS.amount.optional(), percent: PARAMS.percent.optional() }),
});

/**
 * The document's view of a new alert: one branch per type, pairing it with exactly its params and its wallet
 * (cap_used watches an agent wallet's caps, so it names one). The handler and the service hold a body to the
 * same (rules across fields, which the validating schema cannot state).
 */
const BRANCHES: Record<(typeof ALERT_TYPES)[number], z.ZodObject> = {
  balance_below: z.strictObject({
    type: z.literal('balance_below'),
    walletId: watchedWallet,
    params: z.strictObject({ amount: PARAMS.amount }),
  }),
  cap_used: z.strictObject({
    type: z.literal('cap_used'),
    walletId: idSchema.describe('the agent wallet whose spending caps it watches'),
    params: z.strictObject({ percent: PARAMS.percent }),
  }),
  treasury_at_risk: z.strictObject({
    type: z.literal('treasury_at_risk'),
    params: z.strictObject({ amount: PARAMS.amount }),
  }),
};

export const newAlertDocumentation = z.unknown().meta({
  oneOf: ALERT_TYPES.map((type) => {
    const { $schema: _, ...json } = z.toJSONSchema(BRANCHES[type], {
      io: 'input',
      unrepresentable: 'any',
    }) as Record<string, unknown>;
    return { title: `${type} alert`, ...json };
  }),
});

export const alertView = z.object({
  id: z.string(),
  type: z.enum(ALERT_TYPES),
  walletId: z.string().describe('treasury_at_risk: the master wallet (the alert is the organization’s)'),
  params: z.union([z.object({ amount: z.string() }), z.object({ percent: z.number().int() })]),
  firing: z.boolean().describe('fired and not re-armed yet'),
  createdAt: timestamp,
});

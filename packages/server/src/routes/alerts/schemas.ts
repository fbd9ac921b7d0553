import { z } from 'zod';
import { ALERT_TYPES } from '../../domain/alerts.ts';
import { amountSchema, idSchema } from '../../http/schemas.ts';
import { timestamp } from '../views.ts';

export const alertParams = z.strictObject({ id: idSchema });

export const newAlertBody = z.strictObject({
  type: z.enum(ALERT_TYPES),
  walletId: idSchema
    .optional()
    .describe('the wallet watched: an agent wallet, or the master wallet (balance_below without walletId)'),
  params: z.strictObject({
    amount: amountSchema.optional().describe('balance_below: the balance it watches for falling below'),
    percent: z
      .number()
      .int()
      .min(1)
      .max(100)
      .optional()
      .describe('cap_used: the share of any spending cap (1–100) that fires it'),
  }),
});

export const alertView = z.object({
  id: z.string(),
  type: z.enum(ALERT_TYPES),
  walletId: z.string(),
  params: z.union([z.object({ amount: z.string() }), z.object({ percent: z.number().int() })]),
  firing: z.boolean().describe('fired and not re-armed yet'),
  createdAt: timestamp,
});

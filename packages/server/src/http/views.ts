// Response schemas shared by routes: they document the API in the OpenAPI document.
import { z } from 'zod';
import { POLICY_TYPES } from '../domain/policies/policies.ts';

export const amount = z
  .string()
  .describe('decimal string with 6 places, e.g. "10.500000"')
  .meta({ examples: ['10.500000'] });
export const timestamp = z
  .string()
  .describe('ISO-8601 UTC')
  .meta({ examples: ['2026-11-24T21:46:48.213Z'] });
/** Every status a transaction can be in (contract section 4). */
export const transactionStatus = z.enum([
  'pending',
  'processing',
  'completed',
  'rejected',
  'expired',
  'failed',
]);
/** An EIP-55 address. */
const address = z.string().meta({ examples: ['0x52908400098527886E0F7030069857D2E4169EE7'] });

export const userView = z.object({ id: z.string(), email: z.string(), createdAt: timestamp });
export const authView = z.object({ user: userView, token: z.string().describe('JWT, valid for 7 days') });

export const masterWalletView = z.object({
  id: z.string().meta({ examples: ['wal_0mwv85iyh0000SdvGE9xPJKRR'] }),
  address,
  balance: amount,
  currency: z.literal('USDC'),
  createdAt: timestamp,
});

export const agentWalletView = z.object({
  id: z.string(),
  label: z
    .string()
    .nullable()
    .meta({ examples: ['research bot'] }),
  address,
  balance: amount,
  heldBalance: amount,
  currency: z.literal('USDC'),
  frozen: z.boolean(),
  dailyCapRemaining: amount.nullable(),
  totalCapRemaining: amount.nullable(),
  pendingApprovals: z.number().int().describe('payments of this wallet awaiting approval'),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const depositView = z.object({
  id: z.string(),
  amount,
  currency: z.literal('USDC'),
  rail: z.enum(['internal', 'sandbox', 'evm']).describe('where the money came from'),
  txHash: z.string().nullable(),
  createdAt: timestamp,
});

export const violationView = z.object({
  policyId: z.string(),
  policyType: z.enum(POLICY_TYPES),
  reason: z.string(),
  limit: z
    .union([z.string(), z.number(), z.null()])
    .optional()
    .describe('The cap (decimal amount), the count limit, the allowed hours; null for lists.'),
  attempted: z
    .union([z.string(), z.number(), z.null()])
    .optional()
    .describe(
      'What the payment would bring it to; the recipient for lists; the local time for time windows.',
    ),
  window: z.enum(['1h', '24h', '7d', '30d']).optional().describe('The rolling window of a windowed policy.'),
});

/** A paid request's own fields (contract section 13): present on `type: "x402"` transactions only. */
export const paidRequestFields = {
  protocol: z.enum(['x402', 'mpp']).optional().describe('paid requests: how the seller was paid'),
  scheme: z.enum(['exact', 'upto', 'charge']).optional().describe('paid requests: the protocol’s scheme'),
  authorizedAmount: amount
    .optional()
    .describe('paid requests: the most the authorization allowed (the amount itself but for upto)'),
  receipt: z
    .string()
    .nullable()
    .optional()
    .describe(
      'paid requests: the seller’s receipt as sent (x402 PAYMENT-RESPONSE, MPP Payment-Receipt); null until one came',
    ),
};

export const transactionView = z.object({
  id: z.string(),
  walletId: z.string(),
  type: z
    .enum(['payment', 'incoming', 'fund', 'withdraw', 'x402'])
    .describe(
      '"x402": an agent paid for a request (x402_fetch, x402_sign, paid_fetch, mpp_sign, x402 or MPP); `resource` names it and `protocol` says how',
    ),
  status: transactionStatus,
  amount,
  currency: z.literal('USDC'),
  toAddress: z.string().nullable(),
  memo: z.string().nullable(),
  reason: z.string().nullable(),
  rail: z.enum(['internal', 'sandbox', 'evm']).nullable(),
  txHash: z.string().nullable(),
  rejectionReason: z.string().nullable(),
  violations: z.array(violationView).nullable(),
  initiatedBy: z
    .string()
    .describe(
      '"user:<id>" or "key:<id>" of this account; "chain" for an on-chain deposit; "external" for an internal payment from another account (its key and user are not shown)',
    ),
  resource: z.string().nullable().describe('x402 payments: the paid URL without its query'),
  ...paidRequestFields,
  approvalsRequired: z
    .number()
    .int()
    .nullable()
    .describe(
      'a payment that was held: how many distinct members must approve it (require_approvals); else null',
    ),
  approvals: z
    .array(z.object({ memberId: z.string(), email: z.string(), at: timestamp }))
    .describe('who approved a held payment and when, oldest first'),
  expiresAt: timestamp.nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const movementView = z.object({
  transaction: transactionView,
  wallet: agentWalletView,
  masterBalance: amount,
});

// What each tool answers on success, as MCP's `outputSchema` (tools/list) describes its `structuredContent`.
// Loose objects: a field added later does not break a client validating against an older listing.
import { z } from 'zod';
import { amount, paidRequestFields, transactionStatus as status } from '../http/views.ts';

const nullableString = z.string().nullable();

/** Present only when the wallet has a calendar budget: without one the answer is the contract's fields exactly. */
const periodCapFields = {
  periodCapRemaining: amount
    .optional()
    .describe('room left under the tightest calendar budget (spend_cap_period); only when one is set'),
  periodCapResetsAt: z
    .string()
    .optional()
    .describe('when that budget’s period ends and it resets (ISO-8601 UTC)'),
};

export const checkBalanceOutput = z.looseObject({
  walletId: z.string(),
  address: z.string(),
  balance: amount,
  heldBalance: amount,
  currency: z.literal('USDC'),
  frozen: z.boolean(),
  dailyCapRemaining: amount.nullable(),
  totalCapRemaining: amount.nullable(),
  ...periodCapFields,
});

export const txHistoryOutput = z.looseObject({
  transactions: z.array(
    z.looseObject({
      id: z.string(),
      type: z.enum(['payment', 'incoming', 'fund', 'withdraw', 'x402']),
      toAddress: nullableString,
      amount,
      memo: nullableString,
      status,
      txHash: nullableString,
      rail: nullableString,
      resource: nullableString,
      ...paidRequestFields,
      createdAt: z.string(),
    }),
  ),
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
});

export const sendPaymentOutput = z.looseObject({
  txId: z.string(),
  status,
  txHash: nullableString,
  amount,
  toAddress: z.string(),
  rejectionReason: nullableString,
  /** Bounded treasury: why a `pending` payment waits for the treasury's owners rather than an approval. */
  reason: z.string().optional(),
});

export const requestApprovalOutput = z.looseObject({
  txId: z.string(),
  status: z.literal('pending'),
  message: z.string(),
});

const violation = z.looseObject({ policyId: z.string(), policyType: z.string(), reason: z.string() });

export const checkPaymentOutput = z.looseObject({
  allowed: z.boolean(),
  requiresApproval: z.boolean(),
  violations: z.array(violation),
  balanceAfter: amount,
  dailyCapRemaining: amount.nullable(),
  totalCapRemaining: amount.nullable(),
  ...periodCapFields,
  refusal: z.looseObject({ code: z.string(), message: z.string() }).nullable(),
});

const x402Payment = z.looseObject({
  txId: z.string(),
  status,
  protocol: z.enum(['x402', 'mpp']).describe('how the seller was paid'),
  scheme: z.enum(['exact', 'upto', 'charge']),
  amount,
  authorizedAmount: amount.describe('the most the authorization allows (the amount itself but for upto)'),
  payTo: z.string(),
  txHash: nullableString,
});

export const x402FetchOutput = z.looseObject({
  status: z.number().int().describe('the resource’s HTTP status'),
  headers: z.record(z.string(), z.string()),
  body: z.string(),
  bodyEncoding: z.enum(['utf8', 'base64']),
  payment: x402Payment.nullable(),
});

export const paidFetchOutput = x402FetchOutput;

export const mppSignOutput = z.looseObject({
  txId: z.string(),
  status,
  amount,
  recipient: z.string(),
  expires: nullableString.describe('when the challenge expires (ISO-8601), as the seller said'),
  authorization: nullableString.describe('the Authorization header value: Payment <credential>'),
  credential: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe('the credential object, for a paid MCP tool call’s _meta["org.paymentauth/credential"]'),
});

export const x402SignOutput = z.looseObject({
  txId: z.string(),
  status,
  amount,
  payTo: z.string(),
  header: nullableString.describe('the PAYMENT-SIGNATURE (v2) or X-PAYMENT (v1) header value'),
  payload: z.record(z.string(), z.unknown()).nullable(),
  validBefore: z.number().int().nullable(),
});

import { z } from 'zod';
import { HUMAN_TEXT_RULE, idempotencyKeySchema, memoSchema } from '../http/schemas.ts';
import type { ToolDefinition } from './definition.ts';
import { optionalParam } from './optional-param.ts';
import { x402SignOutput } from './outputs.ts';
import {
  PAYMENT_REQUIREMENTS_TEXT,
  paymentRequirementsParam,
  requirementsOf,
  x402ServiceOf,
} from './x402-common.ts';

const params = {
  resource: optionalParam(z.string().max(2_048)).describe(
    'the URL being paid for (shown in history without its query)',
  ),
  memo: optionalParam(memoSchema).describe(`free text stored with the payment: ${HUMAN_TEXT_RULE}`),
  idempotencyKey: optionalParam(idempotencyKeySchema).describe(
    'retrying with the same key returns the same authorization (never a second payment)',
  ),
};

// The contract's object form, or JSON text of it (what models are shown: OpenAI's strict mode takes no open object).
const input = z.strictObject({
  paymentRequirements: paymentRequirementsParam.describe(
    'what the seller’s 402 offered: one requirement, a list of them, or the whole answer ({x402Version, accepts, resource}); or that as JSON text',
  ),
  ...params,
});
const published = z.strictObject({
  paymentRequirements: z.string().describe(PAYMENT_REQUIREMENTS_TEXT),
  ...params,
});

export const x402SignTool: ToolDefinition<z.output<typeof input>> = {
  name: 'x402_sign',
  scope: 'write',
  rails: ['evm'],
  description:
    'Sign an x402 payment (evm rail only) for a 402 the agent received itself: decided like send_payment to the seller, then ' +
    'answers {header, payload, txId, status, amount, payTo, validBefore}; send `header` as PAYMENT-SIGNATURE (v2) ' +
    'or X-PAYMENT (v1). No key leaves the service. A payment that needs approval answers header null and status ' +
    '"pending"; once approved, the same call with the same idempotencyKey signs.',
  input,
  published: () => ({ input: published }),
  output: x402SignOutput,
  run({ key, input: given, idempotencyKey, services }) {
    return x402ServiceOf(services).sign(
      key,
      {
        paymentRequirements: requirementsOf(given.paymentRequirements),
        resource: given.resource ?? null,
        memo: given.memo ?? null,
      },
      idempotencyKey,
    );
  },
};

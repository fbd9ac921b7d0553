import { z } from 'zod';
import { idempotencyKeySchema, memoSchema } from '../http/schemas.ts';
import type { ToolDefinition } from './definition.ts';
import { optionalParam } from './optional-param.ts';
import { x402SignOutput } from './outputs.ts';
import { x402ServiceOf } from './x402-common.ts';

const REQUIREMENTS_MAX = 32;
const requirement = z.record(z.string(), z.unknown());

const input = z.strictObject({
  paymentRequirements: z
    .union([requirement, z.array(requirement).min(1).max(REQUIREMENTS_MAX)])
    .describe(
      'what the seller’s 402 offered: one requirement, a list of them, or the whole answer ({x402Version, accepts, resource})',
    ),
  resource: optionalParam(z.string().max(2_048)).describe(
    'the URL being paid for (shown in history without its query)',
  ),
  memo: optionalParam(memoSchema).describe('free text stored with the payment'),
  idempotencyKey: optionalParam(idempotencyKeySchema).describe(
    'retrying with the same key returns the same authorization (never a second payment)',
  ),
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
  output: x402SignOutput,
  run({ key, input: params, idempotencyKey, services }) {
    return x402ServiceOf(services).sign(
      key,
      {
        paymentRequirements: params.paymentRequirements,
        resource: params.resource ?? null,
        memo: params.memo ?? null,
      },
      idempotencyKey,
    );
  },
};

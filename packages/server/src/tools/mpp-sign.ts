import { z } from 'zod';
import { invalid } from '../errors.ts';
import { HUMAN_TEXT_RULE, idempotencyKeySchema, memoSchema } from '../http/schemas.ts';
import type { ToolDefinition } from './definition.ts';
import { optionalParam } from './optional-param.ts';
import { mppSignOutput } from './outputs.ts';
import { x402ServiceOf } from './x402-common.ts';

/** A WWW-Authenticate value carries a few challenges; an MCP challenge object is as small. */
export const CHALLENGE_LENGTH_MAX = 32 * 1024;

const CHALLENGE_TEXT =
  'the seller’s MPP challenge: the WWW-Authenticate header value of its 402 (several challenges comma-joined, as one ' +
  'header carries them), or a challenge object as a paid MCP tool’s error carries it (data.challenges[i]), or that ' +
  'object as JSON text';

const params = {
  memo: optionalParam(memoSchema).describe(`free text stored with the payment: ${HUMAN_TEXT_RULE}`),
  idempotencyKey: optionalParam(idempotencyKeySchema).describe(
    'retrying with the same key returns the same credential (never a second payment)',
  ),
};
const input = z.strictObject({
  challenge: z
    .union([z.string().min(1).max(CHALLENGE_LENGTH_MAX), z.record(z.string(), z.unknown())])
    .describe(CHALLENGE_TEXT),
  ...params,
});
const published = z.strictObject({
  challenge: z.string().min(1).max(CHALLENGE_LENGTH_MAX).describe(CHALLENGE_TEXT),
  ...params,
});

/** A challenge object given as JSON text is the object. */
export function challengeOf(given: string | Record<string, unknown>): string | Record<string, unknown> {
  if (typeof given !== 'string' || !given.trimStart().startsWith('{')) return given;
  try {
    const parsed: unknown = JSON.parse(given);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {}
  throw invalid('params.challenge: JSON text that is not a challenge object');
}

export const mppSignTool: ToolDefinition<z.output<typeof input>> = {
  name: 'mpp_sign',
  scope: 'write',
  rails: ['evm'],
  description:
    'Sign an MPP payment (evm rail only) for a challenge the agent received itself — an HTTP 402’s WWW-Authenticate: ' +
    'Payment, or a paid MCP tool’s challenge: decided like send_payment to the seller, then answers {authorization, ' +
    'credential, txId, status, amount, recipient, expires}; send `authorization` as the Authorization header (or ' +
    '`credential` in the tool call’s _meta["org.paymentauth/credential"]). No key leaves the service. A payment that ' +
    'needs approval answers both null and status "pending"; once approved, the same call with the same ' +
    'idempotencyKey signs.',
  input,
  published: () => ({ input: published }),
  output: mppSignOutput,
  run({ key, input: given, idempotencyKey, services }) {
    return x402ServiceOf(services).mppSign(
      key,
      { challenge: challengeOf(given.challenge), memo: given.memo ?? null },
      idempotencyKey,
    );
  },
};

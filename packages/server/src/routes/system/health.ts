import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { bearerMatches, bearerToken, isApiKeyShaped } from '../../http/auth.ts';
import { defineRoute } from '../../http/route.ts';
import type { FaceServices } from '../../services/index.ts';
import { VERSION } from '../../version.ts';

/** The treasury (address and holdings) is for the operator (METRICS_TOKEN) and signed-in users, not anyone. */
async function maySeeTreasury(request: FastifyRequest, services: FaceServices): Promise<boolean> {
  const token = bearerToken(request);
  if (token === null || isApiKeyShaped(token)) return false;
  const operatorToken = services.config.metricsToken;
  if (operatorToken !== undefined && bearerMatches(request, operatorToken)) return true;
  return (await services.auth.authenticate(token)) !== null;
}

export default defineRoute({
  method: 'GET',
  url: '/api/v1/health',
  auth: 'none',
  summary: 'Service health',
  description:
    'Whether the database (and Redis, when configured) answer, and which settlement rail is active. ' +
    '`degraded` with `reasons` when any of them cannot serve requests (the database check is bounded at 2 s). ' +
    'No authentication needed; on the `evm` rail, `treasury` is added only for `Authorization: Bearer ' +
    '<METRICS_TOKEN>` (when set) or a valid session JWT.',
  tags: ['system'],
  response: z.object({
    status: z.enum(['ok', 'degraded']),
    version: z.string(),
    database: z.enum(['up', 'down']),
    storage: z.enum(['sqlite', 'postgres']),
    rail: z.string(),
    redis: z.enum(['up', 'down']).optional(),
    treasury: z
      .object({ address: z.string(), gasWei: z.string(), usdc: z.string() })
      .nullable()
      .optional()
      .describe(
        '`evm` rail, for the operator (`Bearer <METRICS_TOKEN>`) or a signed-in user only: the treasury address, ' +
          'its native gas (wei) and USDC; null when the chain cannot be read.',
      ),
    explorerUrl: z
      .string()
      .optional()
      .describe(
        '`evm` rail with EXPLORER_URL: where a transaction hash is shown (`<explorerUrl>/tx/<hash>`).',
      ),
    confirmations: z
      .number()
      .int()
      .optional()
      .describe('`evm` rail: blocks a deposit or payout waits before it counts.'),
    reasons: z
      .array(z.string())
      .optional()
      .describe('Present when degraded: what is wrong, in words (database down, Redis down or quarantined).'),
  }),
  handler: async ({ request, services }) => {
    const { treasury, ...health } = await services.health();
    const shown = treasury !== undefined && (await maySeeTreasury(request, services)) ? { treasury } : {};
    const evm = services.config.evm;
    const chain =
      evm === null
        ? {}
        : {
            confirmations: evm.confirmations,
            ...(evm.explorerUrl === undefined ? {} : { explorerUrl: evm.explorerUrl }),
          };
    return { data: { ...health, ...shown, ...chain, version: VERSION } };
  },
});

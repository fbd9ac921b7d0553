import { z } from 'zod';
import { defineRoute } from '../../http/route.ts';
import { VERSION } from '../../version.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/health',
  auth: 'none',
  summary: 'Service health',
  description:
    'Whether the database (and Redis, when configured) answer, and which settlement rail is active. ' +
    '`degraded` with `reasons` when any of them cannot serve requests (the database check is bounded at 2 s).',
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
        '`evm` rail only: the treasury address, its native gas (wei) and USDC; null when the chain cannot be read.',
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
  handler: async ({ services }) => {
    const health = await services.health();
    const evm = services.config.evm;
    const chain =
      evm === null
        ? {}
        : {
            confirmations: evm.confirmations,
            ...(evm.explorerUrl === undefined ? {} : { explorerUrl: evm.explorerUrl }),
          };
    return { data: { ...health, ...chain, version: VERSION } };
  },
});

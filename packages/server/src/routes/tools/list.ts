import { z } from 'zod';
import { defineRoute } from '../../http/route.ts';
import { toolListing } from '../../tools/registry.ts';

export default defineRoute({
  method: 'GET',
  url: '/mcp/v1/tools',
  auth: 'apiKey',
  summary: 'List the agent tools',
  description:
    'Every tool of this server’s rail (x402_fetch, x402_sign, paid_fetch and mpp_sign only on evm) with its JSON Schema input and the scope it needs, whatever the key’s scopes.',
  tags: ['tools'],
  response: z.object({
    tools: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        scope: z.enum(['read', 'write']),
        inputSchema: z.record(z.string(), z.unknown()),
      }),
    ),
  }),
  handler: async ({ services }) => ({ data: { tools: toolListing(services.config.rail) } }),
});

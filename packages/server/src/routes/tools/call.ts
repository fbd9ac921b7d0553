import { z } from 'zod';
import { unwrap } from '../../domain/outcome.ts';
import { bearerToken } from '../../http/auth.ts';
import { currentAgentKey } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { executeTool } from '../../tools/execute.ts';
import { TOOL_NAMES, TOOLS } from '../../tools/registry.ts';

export default defineRoute({
  method: 'POST',
  url: '/mcp/v1/tools/:name',
  auth: 'apiKey',
  summary: 'Call an agent tool',
  description:
    `Tools: ${TOOL_NAMES.join(', ')}. Body {"params": {...}} or the params themselves. The API key decides the ` +
    'wallet; read tools need the "read" scope, send_payment and request_approval need "write". Responses carry ' +
    '"tool". Idempotency-Key header or idempotencyKey param on write tools.',
  tags: ['tools'],
  params: z.strictObject({ name: z.string() }),
  bodyValidatedByHandler: true,
  documentedBody: toolBodyDocumentation(),
  response: z
    .record(z.string(), z.unknown())
    .describe('The tool’s data (see GET /mcp/v1/tools for each shape).'),
  handler: async ({ request, params, services }) => {
    const outcome = await executeTool(services, {
      name: params.name,
      key: currentAgentKey(request),
      body: request.body,
      headerIdempotencyKey: request.headers['idempotency-key'],
      credential: bearerToken(request),
    });
    return { data: unwrap(outcome), envelope: { tool: params.name } };
  },
});

/** The body of every tool, for the OpenAPI document: `{params}` or the params themselves, one of the tools' inputs. */
function toolBodyDocumentation(): z.ZodType {
  const inputs = TOOLS.map((tool) => tool.input.describe(`${tool.name} params`));
  const anyInput = z.union(inputs as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]]);
  return z
    .union([z.strictObject({ params: anyInput }), anyInput])
    .describe('The params of the tool named in the path, as {"params": {...}} or bare.');
}

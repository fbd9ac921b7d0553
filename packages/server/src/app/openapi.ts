// The last pass over the OpenAPI document, for what the routes' zod schemas cannot say on their own (issue 27: the
// document and the server must agree in both directions, as a fuzzer reading the document checks):
//  - a body the route accepts absent (it also takes JSON null) is `required: false`;
//  - the one tool route, POST /mcp/v1/tools/{name}, is documented as one operation per tool of this server's
//    rail (POST /mcp/v1/tools/check_balance, …), each with exactly that tool's params and success data. On the
//    wire nothing changes: the generic route serves them all, and any other name is 404 UNKNOWN_TOOL.
import { z } from 'zod';
import { type ToolDefinition, toolInputJsonSchema, toolsFor } from '../tools/registry.ts';

// biome-ignore lint/suspicious/noExplicitAny: the document is JSON
type Json = any;

const TOOL_PATH = '/mcp/v1/tools/{name}';

export function refineDocument(document: Json, rail: string): Json {
  for (const item of Object.values<Json>(document.paths ?? {})) {
    for (const operation of Object.values<Json>(item)) markOptionalBody(operation);
  }
  const generic = document.paths?.[TOOL_PATH]?.post;
  if (generic !== undefined) {
    const paths: Record<string, Json> = {};
    for (const [path, item] of Object.entries<Json>(document.paths)) {
      if (path !== TOOL_PATH) {
        paths[path] = item;
        continue;
      }
      for (const tool of toolsFor(rail))
        paths[`/mcp/v1/tools/${tool.name}`] = { post: toolOperation(generic, tool) };
    }
    document.paths = paths;
  }
  return document;
}

/** A body schema that admits null is one the route takes absent as well (route.ts: optionalBody). */
function markOptionalBody(operation: Json): void {
  const body = operation?.requestBody;
  const schema = body?.content?.['application/json']?.schema;
  if (schema === undefined) return;
  const admitsNull = (s: Json): boolean =>
    s?.type === 'null' ||
    (Array.isArray(s?.type) && s.type.includes('null')) ||
    (s?.anyOf ?? []).some(admitsNull);
  if (admitsNull(schema)) body.required = false;
}

/** `get_tx_history` → `getTxHistory`: the operationId reads as an SDK method name, like every other. */
function camel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function toolOperation(generic: Json, tool: ToolDefinition): Json {
  const input = withRule(toolInputJsonSchema(tool), tool.inputRule);
  const takesNothing =
    ((input.required as string[] | undefined) ?? []).length === 0 && tool.inputRule === undefined;
  const writes = tool.scope === 'write';
  return {
    operationId: camel(tool.name),
    summary: `Tool ${tool.name}`,
    description:
      `${tool.description} Scope: "${tool.scope}". Body {"params": {...}} or the params themselves` +
      `${takesNothing ? ' (or no body at all)' : ''}; the answer carries "tool": "${tool.name}".` +
      (writes ? ' Idempotency-Key header or idempotencyKey param to retry safely.' : ''),
    tags: generic.tags,
    security: generic.security,
    requestBody: {
      required: !takesNothing,
      content: {
        'application/json': {
          schema: {
            anyOf: [
              {
                type: 'object',
                properties: { params: input },
                required: ['params'],
                additionalProperties: false,
              },
              input,
              ...(takesNothing ? [{ type: 'null' }] : []),
            ],
          },
        },
      },
    },
    responses: {
      ...generic.responses,
      200: {
        description: `${tool.name}: the tool's data`,
        content: { 'application/json': { schema: successJson(tool) } },
      },
    },
  };
}

/**
 * The input with its rule across params. Each oneOf branch repeats the definitions of the properties it requires,
 * so a reader (and a linter) of the branch alone knows them.
 */
function withRule(input: Json, rule: Json): Json {
  if (rule?.oneOf === undefined) return { ...input, ...rule };
  const oneOf = rule.oneOf.map((branch: Json) => ({
    ...branch,
    properties: {
      ...Object.fromEntries((branch.required ?? []).map((name: string) => [name, input.properties?.[name]])),
      ...branch.properties,
    },
  }));
  return { ...input, ...rule, oneOf };
}

function successJson(tool: ToolDefinition): Json {
  const envelope = z.object({ success: z.literal(true), tool: z.literal(tool.name), data: tool.output });
  const { $schema: _, ...schema } = z.toJSONSchema(envelope, {
    io: 'output',
    unrepresentable: 'any',
  }) as Json;
  return schema;
}

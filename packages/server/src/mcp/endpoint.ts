// POST /mcp's two protocol eras behind one endpoint, both on the official v2 SDK (@modelcontextprotocol/server):
//  - 2026-07-28 (handshake-free: every request names its revision in `_meta`, and `server/discover` says what the
//    server speaks) goes to the SDK's own modern handler (createMcpHandler);
//  - a 2025 revision (the `initialize` handshake, then requests naming the negotiated version in the
//    MCP-Protocol-Version header) goes to the SDK's stateless Streamable HTTP transport, answering JSON as before.
// The SDK's own predicate (isLegacyRequest) chooses per request. The SDK's built-in legacy fallback would do the
// same but answers over SSE; hand-wiring the legacy leg keeps the JSON answers 2025 clients already get.
import {
  createMcpHandler,
  isLegacyRequest,
  type McpRequestContext as SdkRequestContext,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { FastifyBaseLogger } from 'fastify';
import type { FaceServices } from '../services/index.ts';
import type { AgentKey } from '../services/keys/keys.ts';
import type { McpRequestContext } from './context.ts';
import { invalidIdResponse, invalidRequestId } from './ids.ts';
import { createMcpServer } from './server.ts';

/** Who asks and what the HTTP layer knows of the request: the key was authenticated before MCP starts. */
export interface McpCaller {
  key: AgentKey;
  context: McpRequestContext;
}

export interface McpEndpoint {
  /** Answers one POST: `body` is the JSON the HTTP layer already parsed, `request` carries its headers. */
  serve(request: Request, body: unknown, caller: McpCaller): Promise<Response>;
  /** Ends the modern handler's open exchanges (the legacy leg holds nothing between requests). */
  close(): Promise<void>;
}

export function createMcpEndpoint(services: FaceServices, log: FastifyBaseLogger): McpEndpoint {
  // The SDK's factory receives the web Request it serves, not our caller: each request's caller is found by it.
  const callers = new WeakMap<Request, McpCaller>();
  const modern = createMcpHandler((sdk) => serverFor(services, callers, sdk), {
    // 2025 traffic never reaches this handler (serve() routes it first); 'reject' keeps it from answering any.
    legacy: 'reject',
    // Refused requests (a revision it does not speak, a header that contradicts the body) are the client's
    // mistake and already answered with a JSON-RPC error; logged for whoever debugs a client.
    onerror: (error) => log.info({ err: error }, 'MCP request refused'),
  });
  return {
    async serve(request, body, caller) {
      const badId = invalidRequestId(body);
      if (badId !== undefined) return invalidIdResponse(badId);
      if (await isLegacyRequest(request, body)) {
        return serveLegacy(createMcpServer(services, caller.key, caller.context), request, body);
      }
      callers.set(request, caller);
      return modern.fetch(request, { parsedBody: body });
    },
    close: () => modern.close(),
  };
}

function serverFor(services: FaceServices, callers: WeakMap<Request, McpCaller>, sdk: SdkRequestContext) {
  const caller = sdk.requestInfo === undefined ? undefined : callers.get(sdk.requestInfo);
  // Unreachable while serve() registers the caller before handing the request to the SDK; a loud failure
  // (the SDK answers it as an internal error) is better than a server bound to nobody.
  if (caller === undefined) throw new Error('MCP request without its caller');
  return createMcpServer(services, caller.key, caller.context);
}

/**
 * One 2025-revision POST (a single message or a batch): stateless, so any instance can answer any request, and
 * JSON rather than an SSE stream — the tools send nothing before their result.
 */
async function serveLegacy(
  server: ReturnType<typeof createMcpServer>,
  request: Request,
  body: unknown,
): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: body });
  } finally {
    // A JSON answer is complete once handleRequest resolves: nothing of this exchange outlives it.
    await transport.close();
    await server.close();
  }
}

// `agent-wallet mcp`: an MCP server on stdio for desktop clients (Claude Desktop, Cursor), bridging to a
// running service's POST /mcp with the agent's API key. Every decision (scopes, policies, limits) stays on
// the service; the bridge only relays. stdout carries the protocol, so messages for people go to stderr.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '../version.ts';

const DEFAULT_URL = 'http://127.0.0.1:8787';

export async function runStdioBridge(env: NodeJS.ProcessEnv): Promise<number> {
  const apiKey = env.AGENT_WALLET_API_KEY;
  if (apiKey === undefined || !apiKey.startsWith('svc_live_')) {
    process.stderr.write('agent-wallet mcp: set AGENT_WALLET_API_KEY to the agent’s svc_live_… key\n');
    return 2;
  }
  const baseUrl = new URL('/mcp', env.AGENT_WALLET_URL ?? DEFAULT_URL);
  const upstream = new Client({ name: 'agent-wallet-stdio-bridge', version: VERSION });
  await upstream.connect(
    new StreamableHTTPClientTransport(baseUrl, {
      requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
    }),
  );
  const server = new Server(
    { name: 'agent-wallet', version: VERSION },
    { capabilities: { tools: {}, resources: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) => upstream.listTools(request.params));
  server.setRequestHandler(CallToolRequestSchema, (request) => upstream.callTool(request.params));
  server.setRequestHandler(ListResourcesRequestSchema, (request) => upstream.listResources(request.params));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => upstream.readResource(request.params));
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(new StdioServerTransport());
  process.stderr.write(`agent-wallet mcp ${VERSION}: bridging stdio to ${baseUrl.href}\n`);
  await closed;
  await upstream.close();
  return 0;
}

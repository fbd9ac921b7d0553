// `agent-wallet mcp`: an MCP server on stdio for desktop clients (Claude Desktop, Cursor), bridging to a
// running service's POST /mcp with the agent's API key. Every decision (scopes, policies, limits) stays on
// the service; the bridge only relays. stdout carries the protocol, so messages for people go to stderr.
// Both sides are the official v2 SDK: toward the desktop client it speaks 2026-07-28 and the 2025 revisions
// (serveStdio picks the era from the client's first message); toward the service it negotiates (server/discover,
// else initialize, for a service older than this bridge).
// With `--upstream <url>` it fronts a paid MCP server instead (contract section 13): its tools are listed as the
// upstream lists them, and a call the upstream charges for (x402 or MPP over MCP) is paid through the wallet —
// x402_sign / mpp_sign on the service, under the wallet's policies and approvals — and made again once with the
// payment (the SDK's withWalletPayments). The agent's key goes only to the service, never to the upstream.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { AgentWalletClient } from '../../../sdk/src/agent-client.ts';
import { withWalletPayments } from '../../../sdk/src/mcp-payments.ts';
import { VERSION } from '../version.ts';

const DEFAULT_URL = 'http://127.0.0.1:8787';

/** The `_meta` keys each side's SDK writes for itself (protocol version, client info and capabilities). */
const RESERVED_META_PREFIX = 'io.modelcontextprotocol/';

export async function runStdioBridge(env: NodeJS.ProcessEnv, upstreamUrl?: string): Promise<number> {
  const apiKey = env.AGENT_WALLET_API_KEY;
  if (apiKey === undefined || !apiKey.startsWith('svc_live_')) {
    process.stderr.write('agent-wallet mcp: set AGENT_WALLET_API_KEY to the agent’s svc_live_… key\n');
    return 2;
  }
  const serviceUrl = env.AGENT_WALLET_URL ?? DEFAULT_URL;
  const target = upstreamTarget(serviceUrl, apiKey, upstreamUrl);
  if (target === null) {
    process.stderr.write(`agent-wallet mcp: --upstream must be an http(s) URL, got ${String(upstreamUrl)}\n`);
    return 2;
  }
  const baseUrl = target.url;
  const upstream = new Client(
    { name: 'agent-wallet-stdio-bridge', version: VERSION },
    { versionNegotiation: { mode: 'auto' } },
  );
  await upstream.connect(new StreamableHTTPClientTransport(baseUrl, target.options));
  if (upstreamUrl !== undefined)
    withWalletPayments(upstream, new AgentWalletClient({ baseUrl: serviceUrl, apiKey }));
  const stdio = new EndingStdio();
  const connection = serveStdio(() => relayTo(upstream), {
    transport: stdio,
    onerror: (error) => process.stderr.write(`agent-wallet mcp: ${error.message}\n`),
  });
  process.stderr.write(`agent-wallet mcp ${VERSION}: bridging stdio to ${baseUrl.href}\n`);
  await stdio.ended;
  await connection.close();
  await upstream.close();
  return 0;
}

/**
 * Where the bridge connects: the service's POST /mcp with the agent's key, or a paid upstream MCP server with
 * nothing of the agent's (null: not an http(s) URL).
 */
function upstreamTarget(serviceUrl: string, apiKey: string, upstreamUrl: string | undefined) {
  if (upstreamUrl === undefined) {
    const options = { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } };
    return { url: new URL('/mcp', serviceUrl), options };
  }
  try {
    const url = new URL(upstreamUrl);
    return url.protocol === 'https:' || url.protocol === 'http:' ? { url, options: {} } : null;
  } catch {
    return null;
  }
}

/** One server per connection (and per discarded discovery probe), each relaying to the one upstream client. */
function relayTo(upstream: Client): Server {
  const server = new Server(
    { name: 'agent-wallet', version: VERSION },
    { capabilities: { tools: {}, resources: {} } },
  );
  server.setRequestHandler('tools/list', (request) => upstream.listTools(forwarded(request.params)));
  server.setRequestHandler('tools/call', async (request) => {
    const params = forwarded(request.params);
    return upstream.callTool({ ...params, name: request.params.name });
  });
  server.setRequestHandler('resources/list', (request) => upstream.listResources(forwarded(request.params)));
  server.setRequestHandler('resources/read', (request) =>
    upstream.readResource({ ...forwarded(request.params), uri: request.params.uri }),
  );
  return server;
}

/**
 * A request's params for the service without the desktop client's own envelope keys: the upstream client
 * states its own revision and capabilities (the bridge cannot relay, say, an elicitation the desktop client
 * offers). The rest of `_meta` (idempotencyKey, progressToken) goes through.
 */
function forwarded<P extends { _meta?: Record<string, unknown> }>(params: P | undefined): P | undefined {
  if (params?._meta === undefined) return params;
  const meta = Object.fromEntries(
    Object.entries(params._meta).filter(([name]) => !name.startsWith(RESERVED_META_PREFIX)),
  );
  return { ...params, _meta: meta };
}

/** stdio whose end the bridge can wait for: serveStdio owns the transport's onclose, so close() tells instead. */
class EndingStdio extends StdioServerTransport {
  private markEnded: () => void = () => undefined;
  readonly ended = new Promise<void>((resolve) => {
    this.markEnded = resolve;
  });

  override async close(): Promise<void> {
    await super.close();
    this.markEnded();
  }
}

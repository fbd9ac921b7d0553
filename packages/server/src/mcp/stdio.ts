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
// When the service refuses the bridge (a bad key: 401 MCP_AUTH_INVALID), the desktop client is told in the
// contract's words and what to check — as the JSON-RPC error of each of its requests, and on stderr — not the
// SDK's "Version negotiation failed: the server requires authorization (HTTP 401)".
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ProtocolError, Server } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { AgentWalletClient } from '../../../sdk/src/agent-client.ts';
import { withWalletPayments } from '../../../sdk/src/mcp-payments.ts';
import { VERSION } from '../version.ts';

const DEFAULT_URL = 'http://127.0.0.1:8787';

/** The `_meta` keys each side's SDK writes for itself (protocol version, client info and capabilities). */
const RESERVED_META_PREFIX = 'io.modelcontextprotocol/';

/** JSON-RPC code of the bridge's own errors: an implementation-defined server error (JSON-RPC 2.0, 5.1). */
const BRIDGE_ERROR = -32001;
/** The most of a refusal's body read: the service's failure envelopes are a few hundred bytes. */
const REFUSAL_BYTES_MAX = 16 * 1024;

/** What to check, for each code the service may refuse the bridge with (contract sections 2 and 6). */
const ADVICE: Record<string, string> = {
  MCP_AUTH_INVALID:
    'check AGENT_WALLET_API_KEY: it must be a live key of this agent wallet (dashboard: the agent wallet, Keys); a ' +
    'revoked, expired or rotated-away key is refused',
  MCP_AUTH_MISSING: 'set AGENT_WALLET_API_KEY to the agent’s svc_live_… key',
  ORIGIN_NOT_ALLOWED: 'check AGENT_WALLET_URL: the service refuses requests for that host name',
  INSUFFICIENT_SCOPE: 'the key lacks the scope: create one with the scopes the agent needs',
};

/** Why the bridge cannot serve: the service's code when it refused (else none), and the words for a person. */
interface Failure {
  code: string | undefined;
  message: string;
}

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
  const watch = refusalWatch();
  try {
    await upstream.connect(
      new StreamableHTTPClientTransport(baseUrl, { ...target.options, fetch: watch.fetch }),
    );
  } catch (error) {
    const failure = startFailure(error, watch.take(), baseUrl, upstreamUrl === undefined);
    process.stderr.write(`agent-wallet mcp: ${failure.message}\n`);
    await refuseOnStdio(failure);
    return 1;
  }
  if (upstreamUrl !== undefined)
    withWalletPayments(upstream, new AgentWalletClient({ baseUrl: serviceUrl, apiKey }));
  const stdio = new EndingStdio();
  const connection = serveStdio(() => relayTo(upstream, watch), {
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

/**
 * One server per connection (and per discarded discovery probe), each relaying to the one upstream client. A
 * request the service refuses midway (the key revoked since) fails with the refusal in the contract's words.
 */
function relayTo(upstream: Client, watch: RefusalWatch): Server {
  const server = new Server(
    { name: 'agent-wallet', version: VERSION },
    { capabilities: { tools: {}, resources: {} } },
  );
  const relay = <T>(call: Promise<T>): Promise<T> =>
    call.catch((error: unknown) => {
      const refusal = watch.take();
      if (refusal === null) throw error;
      throw new ProtocolError(BRIDGE_ERROR, refusal.message, { code: refusal.code });
    });
  server.setRequestHandler('tools/list', (request) => relay(upstream.listTools(forwarded(request.params))));
  server.setRequestHandler('tools/call', (request) =>
    relay(upstream.callTool({ ...forwarded(request.params), name: request.params.name })),
  );
  server.setRequestHandler('resources/list', (request) =>
    relay(upstream.listResources(forwarded(request.params))),
  );
  server.setRequestHandler('resources/read', (request) =>
    relay(upstream.readResource({ ...forwarded(request.params), uri: request.params.uri })),
  );
  return server;
}

interface RefusalWatch {
  /** The upstream transport's fetch: a 401 or 403 in the failure envelope is kept, as the service worded it. */
  fetch: (url: string | URL, init?: RequestInit) => Promise<Response>;
  /** The refusal seen since the last take, described for a person (null: none). */
  take(): (Failure & { code: string }) | null;
}

function refusalWatch(): RefusalWatch {
  let last: (Failure & { code: string }) | null = null;
  return {
    async fetch(url, init) {
      const response = await fetch(url, init);
      if (response.status === 401 || response.status === 403) last = await refusalOf(response.clone());
      return response;
    },
    take() {
      const refusal = last;
      last = null;
      return refusal;
    },
  };
}

/** `CODE: the service's message; what to check` — the code first, as the contract's tool errors read. */
async function refusalOf(response: Response): Promise<Failure & { code: string }> {
  let envelope: { error?: { code?: unknown; message?: unknown } } | undefined;
  try {
    envelope = JSON.parse(await boundedText(response, REFUSAL_BYTES_MAX));
  } catch {
    envelope = undefined; // not the service's envelope: the status says what is known
  }
  const code = typeof envelope?.error?.code === 'string' ? envelope.error.code : `HTTP_${response.status}`;
  const said =
    typeof envelope?.error?.message === 'string' ? envelope.error.message : `HTTP ${response.status}`;
  const advice = ADVICE[code];
  return { code, message: `${code}: ${said}${advice === undefined ? '' : `; ${advice}`}` };
}

async function boundedText(response: Response, maxBytes: number): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < maxBytes) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}

/** Why connecting failed: the service's refusal when it refused, else the transport's error and where to look. */
function startFailure(error: unknown, refusal: Failure | null, url: URL, toService: boolean): Failure {
  const where = `${toService ? 'the service' : 'the upstream MCP server'} at ${url.href}`;
  if (refusal !== null) return { code: refusal.code, message: `${refusal.message} (${where})` };
  const cause = error instanceof Error ? error.message : String(error);
  const check = toService ? 'check AGENT_WALLET_URL and that the service is running' : 'check --upstream';
  return { code: undefined, message: `could not connect to ${where}: ${cause}; ${check}` };
}

/**
 * The desktop client's requests, each answered with the failure as a JSON-RPC error (initialize first, which hosts
 * show) until it closes stdin: a bridge that exited at once would only be "server disconnected" to it.
 */
async function refuseOnStdio(failure: Failure): Promise<void> {
  const stdio = new EndingStdio();
  stdio.onmessage = (message) => {
    if (!('method' in message) || !('id' in message)) return; // notifications and responses want no answer
    const error = { code: BRIDGE_ERROR, message: failure.message, data: { code: failure.code ?? null } };
    void stdio.send({ jsonrpc: '2.0', id: message.id, error }).catch(() => undefined);
  };
  await stdio.start();
  await stdio.ended;
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

// "Connect your agent" (issue 30): the set-up a person copies into an agent host or framework to give it this
// wallet. Everything points at this service (the dashboard's own origin). Hosts that sign in by OAuth need the URL
// alone (remoteSetups); the key-based set-ups carry the key as a placeholder: keys are shown once, at creation, and
// the page never fetches or shows one. The framework snippets are the code
// packages/server/test/frameworks.test.ts runs (copied by scripts/connect-snippets.mjs).
import { type ConnectSnippet, FRAMEWORK_SNIPPETS } from './connectSnippets.generated.ts';

/** What stands for the agent's API key in every snippet. */
export const KEY_PLACEHOLDER = 'svc_live_…';
/** The environment variable the snippets read the key from, where the host supports one. */
export const KEY_VARIABLE = 'AGENT_WALLET_API_KEY';

export interface ConnectSetup {
  id: string;
  name: string;
  /** Where the text goes, in a few words. */
  where: string;
  /** The text to copy. */
  code: string;
}

/** The service's base URL from the dashboard's origin, without a trailing slash. */
export function serviceUrl(origin: string): string {
  return origin.replace(/\/+$/, '');
}

/** The Streamable HTTP endpoint agents connect to. */
export function mcpUrl(origin: string): string {
  return `${serviceUrl(origin)}/mcp`;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** An app that connects by URL alone and signs in with OAuth (contract section 12): no key to copy. */
export interface RemoteSetup {
  id: string;
  name: string;
  /** What to do, in order, in the app's own words where it has them. */
  steps: string[];
  /** The text to copy (a command or a config file), when there is one; the URL alone otherwise. */
  code?: string;
  /** Where the text goes, in a few words. */
  where?: string;
}

/** What every sign-in ends with: this dashboard's consent page. */
const CONSENT_STEP =
  'Your browser opens this dashboard: log in, choose this wallet and what the app may do, then Allow.';

/**
 * The hosts that connect by URL and sign in (OAuth discovered from the URL): claude.ai and Claude Desktop (one
 * Claude account: its connectors are added on the web and reached from Anthropic's servers), ChatGPT (its
 * connectors are also reached from OpenAI's servers), then Claude Code, Cursor and VS Code, which connect from this
 * computer. Menu names as the hosts' own documentation gives them; they move between releases.
 */
export function remoteSetups(origin: string): RemoteSetup[] {
  const url = mcpUrl(origin);
  return [
    {
      id: 'oauth-claude',
      name: 'claude.ai and Claude Desktop',
      steps: [
        'In Claude, open Settings → Connectors and choose Add custom connector.',
        'Name it Agent Wallet, paste the MCP URL above and choose Add, then Connect.',
        CONSENT_STEP,
      ],
    },
    {
      id: 'oauth-chatgpt',
      name: 'ChatGPT',
      steps: [
        'In ChatGPT, open Settings → Connectors (Apps) → Advanced and turn on Developer mode.',
        'Choose Create (or Add custom connector), paste the MCP URL above, keep OAuth as the authentication and create it.',
        CONSENT_STEP,
      ],
    },
    {
      id: 'oauth-claude-code',
      name: 'Claude Code',
      where: 'a terminal',
      code: `claude mcp add --transport http agent-wallet ${url}\n`,
      steps: [
        'Run the command.',
        'In Claude Code, type /mcp, choose agent-wallet and Authenticate.',
        CONSENT_STEP,
      ],
    },
    {
      id: 'oauth-cursor',
      name: 'Cursor',
      where: '~/.cursor/mcp.json or .cursor/mcp.json',
      code: json({ mcpServers: { 'agent-wallet': { url } } }),
      steps: [
        'Add the server to the file.',
        'In Cursor’s MCP settings, choose Connect (or Login) next to agent-wallet.',
        CONSENT_STEP,
      ],
    },
    {
      id: 'oauth-vscode',
      name: 'VS Code',
      where: '.vscode/mcp.json or your profile’s mcp.json',
      code: json({ servers: { 'agent-wallet': { type: 'http', url } } }),
      steps: [
        'Add the server to the file and start it.',
        'VS Code asks to sign in to agent-wallet: allow it.',
        CONSENT_STEP,
      ],
    },
  ];
}

/**
 * Whether the dashboard's origin is a local address: claude.ai and ChatGPT reach an MCP server from their own
 * servers, over the public internet, so they cannot connect to it (the hosts on this computer can).
 */
export function isLocalOrigin(origin: string): boolean {
  let host: string;
  try {
    host = new URL(origin).hostname;
  } catch {
    return false;
  }
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '[::1]' ||
    /^127\./.test(host) ||
    /^10\./.test(host) ||
    /^192\.168\./.test(host) ||
    /^172\.(1[6-9]|2\d|3[01])\./.test(host)
  );
}

/** The MCP hosts: Claude Desktop (the stdio bridge), Claude Code, Cursor and VS Code (remote HTTP with the key). */
export function hostSetups(origin: string): ConnectSetup[] {
  const url = mcpUrl(origin);
  const bearer = `Bearer ${KEY_PLACEHOLDER}`;
  return [
    {
      id: 'claude-desktop',
      name: 'Claude Desktop',
      where:
        'claude_desktop_config.json; the `agent-wallet mcp` bridge from a checkout of this service, run by Node 22.18 or newer (give its absolute path)',
      code: json({
        mcpServers: {
          'agent-wallet': {
            command: '/absolute/path/to/node',
            args: ['/path/to/agent-wallet-service/packages/server/bin/agent-wallet.js', 'mcp'],
            env: { [KEY_VARIABLE]: KEY_PLACEHOLDER, AGENT_WALLET_URL: serviceUrl(origin) },
          },
        },
      }),
    },
    {
      id: 'claude-code',
      name: 'Claude Code',
      where: 'a terminal',
      code: `claude mcp add --transport http agent-wallet ${url} --header "Authorization: ${bearer}"\n`,
    },
    {
      id: 'cursor',
      name: 'Cursor',
      where: `~/.cursor/mcp.json or .cursor/mcp.json; set ${KEY_VARIABLE} in the environment Cursor starts from`,
      code: json({
        mcpServers: {
          'agent-wallet': {
            url,
            headers: { Authorization: `Bearer \${env:${KEY_VARIABLE}}` },
          },
        },
      }),
    },
    {
      id: 'vscode',
      name: 'VS Code',
      where: '.vscode/mcp.json or your profile’s mcp.json; VS Code asks for the key once and keeps it secret',
      code: json({
        inputs: [
          {
            type: 'promptString',
            id: 'agent-wallet-key',
            description: 'Agent Wallet API key (svc_live_…)',
            password: true,
          },
        ],
        servers: {
          'agent-wallet': {
            type: 'http',
            url,
            // biome-ignore lint/suspicious/noTemplateCurlyInString: VS Code's own input variable, not a template
            headers: { Authorization: 'Bearer ${input:agent-wallet-key}' },
          },
        },
      }),
    },
  ];
}

/** The call that uses a framework snippet's `connect` against this service, the key from the environment. */
export function connectCall(origin: string): string {
  return `await connect({ url: ${JSON.stringify(serviceUrl(origin))}, apiKey: process.env.${KEY_VARIABLE} ?? '' });\n`;
}

/** The frameworks: the tested snippet, then the call that connects it here. */
export function frameworkSetups(
  origin: string,
  snippets: readonly ConnectSnippet[] = FRAMEWORK_SNIPPETS,
): ConnectSetup[] {
  return snippets.map((snippet) => ({
    id: snippet.id,
    name: snippet.name,
    where: 'your agent’s code (TypeScript)',
    code: `${snippet.code}\n// Then, with ${KEY_VARIABLE} set:\n${usage(snippet.id)}${connectCall(origin)}`,
  }));
}

/** What the snippet's result is called where it is used (each framework names its handle differently). */
function usage(id: string): string {
  if (id === 'openai-agents') return 'const { server } = ';
  return 'const { client, tools } = ';
}

import { describe, expect, it } from 'vitest';
import {
  connectCall,
  frameworkSetups,
  hostSetups,
  isLocalOrigin,
  KEY_PLACEHOLDER,
  mcpUrl,
  remoteSetups,
  serviceUrl,
} from '../src/views/connect.ts';
import { FRAMEWORK_SNIPPETS } from '../src/views/connectSnippets.generated.ts';

const ORIGIN = 'https://wallet.example.com';

describe('the service URL', () => {
  it('is the origin without trailing slashes; MCP is at /mcp', () => {
    expect(serviceUrl('https://wallet.example.com/')).toBe(ORIGIN);
    expect(mcpUrl(ORIGIN)).toBe(`${ORIGIN}/mcp`);
    expect(mcpUrl('http://127.0.0.1:8787//')).toBe('http://127.0.0.1:8787/mcp');
  });
});

describe('hostSetups', () => {
  const setups = hostSetups(ORIGIN);
  const byId = (id: string) => {
    const setup = setups.find((s) => s.id === id);
    if (setup === undefined) throw new Error(`no ${id}`);
    return setup;
  };

  it('covers Claude Desktop, Claude Code, Cursor and VS Code, in that order', () => {
    expect(setups.map((s) => s.name)).toEqual(['Claude Desktop', 'Claude Code', 'Cursor', 'VS Code']);
  });

  it('Claude Desktop: the agent-wallet mcp stdio bridge with the key and the service URL in its env', () => {
    const config = JSON.parse(byId('claude-desktop').code);
    const server = config.mcpServers['agent-wallet'];
    expect(server.args.at(-1)).toBe('mcp');
    expect(server.args[0]).toMatch(/packages\/server\/bin\/agent-wallet\.js$/);
    expect(server.env).toEqual({ AGENT_WALLET_API_KEY: KEY_PLACEHOLDER, AGENT_WALLET_URL: ORIGIN });
  });

  it('Claude Code: claude mcp add over HTTP with the bearer header', () => {
    expect(byId('claude-code').code).toBe(
      `claude mcp add --transport http agent-wallet ${ORIGIN}/mcp --header "Authorization: Bearer ${KEY_PLACEHOLDER}"\n`,
    );
  });

  it('Cursor: a remote server by url with the key from the environment', () => {
    expect(JSON.parse(byId('cursor').code)).toEqual({
      mcpServers: {
        'agent-wallet': {
          url: `${ORIGIN}/mcp`,
          // biome-ignore lint/suspicious/noTemplateCurlyInString: Cursor's own variable syntax
          headers: { Authorization: 'Bearer ${env:AGENT_WALLET_API_KEY}' },
        },
      },
    });
  });

  it('VS Code: an http server whose header takes the key from a password input', () => {
    const config = JSON.parse(byId('vscode').code);
    expect(config.servers['agent-wallet']).toEqual({
      type: 'http',
      url: `${ORIGIN}/mcp`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: VS Code's own variable syntax
      headers: { Authorization: 'Bearer ${input:agent-wallet-key}' },
    });
    expect(config.inputs).toEqual([expect.objectContaining({ id: 'agent-wallet-key', password: true })]);
  });

  it('never holds a real key: only the placeholder', () => {
    for (const setup of setups) expect(setup.code).not.toMatch(/svc_live_[0-9A-Za-z]/);
  });
});

describe('remoteSetups (OAuth: the URL alone)', () => {
  const setups = remoteSetups(ORIGIN);
  const byId = (id: string) => {
    const setup = setups.find((s) => s.id === id);
    if (setup === undefined) throw new Error(`no ${id}`);
    return setup;
  };

  it('covers claude.ai and Claude Desktop, ChatGPT, Claude Code, Cursor and VS Code, in that order', () => {
    expect(setups.map((s) => s.name)).toEqual([
      'claude.ai and Claude Desktop',
      'ChatGPT',
      'Claude Code',
      'Cursor',
      'VS Code',
    ]);
  });

  it('every one ends on this dashboard’s consent page, and none carries a key or a header', () => {
    for (const setup of setups) {
      expect(setup.steps.at(-1)).toMatch(/opens this dashboard.*Allow/);
      expect(setup.code ?? '').not.toMatch(/svc_|Authorization|headers/);
    }
  });

  it('Claude Code: claude mcp add over HTTP with the URL alone', () => {
    expect(byId('oauth-claude-code').code).toBe(
      `claude mcp add --transport http agent-wallet ${ORIGIN}/mcp\n`,
    );
  });

  it('Cursor: a remote server by url alone', () => {
    expect(JSON.parse(byId('oauth-cursor').code ?? '')).toEqual({
      mcpServers: { 'agent-wallet': { url: `${ORIGIN}/mcp` } },
    });
  });

  it('VS Code: an http server by url alone', () => {
    expect(JSON.parse(byId('oauth-vscode').code ?? '')).toEqual({
      servers: { 'agent-wallet': { type: 'http', url: `${ORIGIN}/mcp` } },
    });
  });

  it('claude.ai and ChatGPT take the URL in their settings: nothing to copy but the URL', () => {
    expect(byId('oauth-claude').code).toBeUndefined();
    expect(byId('oauth-chatgpt').code).toBeUndefined();
  });
});

describe('isLocalOrigin', () => {
  it('knows the addresses claude.ai and ChatGPT cannot reach', () => {
    for (const origin of [
      'http://localhost:8787',
      'http://127.0.0.1:8787',
      'http://[::1]:8787',
      'http://app.localhost',
      'http://192.168.1.20',
      'http://10.0.0.5',
      'http://172.20.0.2',
    ]) {
      expect(isLocalOrigin(origin)).toBe(true);
    }
    for (const origin of ['https://wallet.example.com', 'http://172.32.0.1', 'not a url']) {
      expect(isLocalOrigin(origin)).toBe(false);
    }
  });
});

describe('frameworkSetups', () => {
  it('shows each tested snippet unchanged, then the call that connects it to this service', () => {
    const setups = frameworkSetups(ORIGIN);
    expect(setups.map((s) => s.name)).toEqual(['OpenAI Agents SDK', 'Vercel AI SDK', 'LangChain JS']);
    for (const [i, setup] of setups.entries()) {
      const snippet = FRAMEWORK_SNIPPETS[i];
      expect(setup.code.startsWith(snippet?.code ?? '?')).toBe(true);
      expect(setup.code.endsWith(connectCall(ORIGIN))).toBe(true);
      expect(setup.code).toContain('/mcp');
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the snippet's code, as text
      expect(setup.code).toContain('Authorization: `Bearer ${apiKey}`');
    }
    expect(setups[0]?.code).toContain('const { server } = await connect(');
    expect(setups[1]?.code).toContain('const { client, tools } = await connect(');
  });

  it('connects with the key from the environment', () => {
    expect(connectCall(`${ORIGIN}/`)).toBe(
      `await connect({ url: "${ORIGIN}", apiKey: process.env.AGENT_WALLET_API_KEY ?? '' });\n`,
    );
  });
});

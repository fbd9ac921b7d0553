// OpenAI Agents SDK: `npm install @openai/agents`. Pass `server` to new Agent({ mcpServers: [server] });
// close it when done.
import { MCPServerStreamableHttp } from '@openai/agents';

export async function connect({ url, apiKey }: { url: string; apiKey: string }) {
  const server = new MCPServerStreamableHttp({
    name: 'agent-wallet',
    url: `${url}/mcp`,
    requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
  });
  await server.connect();
  return { server };
}

// LangChain JS: `npm install langchain @langchain/core @langchain/mcp-adapters`. Pass `tools` to createAgent;
// close the client when done.
import { MultiServerMCPClient } from '@langchain/mcp-adapters';

export async function connect({ url, apiKey }: { url: string; apiKey: string }) {
  const client = new MultiServerMCPClient({
    mcpServers: {
      'agent-wallet': {
        transport: 'http',
        url: `${url}/mcp`,
        headers: { Authorization: `Bearer ${apiKey}` },
      },
    },
  });
  return { client, tools: await client.getTools() };
}

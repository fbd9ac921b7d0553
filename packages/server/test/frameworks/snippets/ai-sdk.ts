// Vercel AI SDK: `npm install ai @ai-sdk/mcp`. Pass `tools` to generateText/streamText; close the client when done.
import { createMCPClient } from '@ai-sdk/mcp';

export async function connect({ url, apiKey }: { url: string; apiKey: string }) {
  const client = await createMCPClient({
    transport: {
      type: 'http',
      url: `${url}/mcp`,
      headers: { Authorization: `Bearer ${apiKey}` },
    },
  });
  return { client, tools: await client.tools() };
}

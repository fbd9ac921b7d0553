// LangChain JS: `npm install langchain @langchain/core @langchain/mcp-adapters`. Pass `tools` to createAgent;
// close the client when done. If the agent retries tool calls, use `walletToolRetry()` as its middleware.
import { getRetryable } from '@langchain/core/errors';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { toolRetryMiddleware } from 'langchain';

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

// The wallet's answers (a policy denial, an insufficient balance…) come back as errors whose text starts with
// the code: they are decisions, and the model should read them — not retries ending "failed after 3 attempts".
const ANSWERED = /returned an error: ([A-Z][A-Z0-9_]*):/;
const TRANSIENT = ['SERVICE_UNAVAILABLE'];

/** toolRetryMiddleware that retries only failures on the way (a dropped connection, the service briefly down). */
export function walletToolRetry(options: Parameters<typeof toolRetryMiddleware>[0] = {}) {
  return toolRetryMiddleware({
    ...options,
    // An error LangChain itself marks (not) retryable keeps its mark, as in the middleware's default.
    retryOn: (error) => {
      const code = ANSWERED.exec(error.message)?.[1];
      return getRetryable(error) ?? (code === undefined || TRANSIENT.includes(code));
    },
    // What the model reads when a call is not retried (again): the wallet's own words, code first.
    onFailure: (error) => error.message,
  });
}

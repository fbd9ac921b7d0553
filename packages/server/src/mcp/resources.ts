// The wallet as MCP resources, for clients that browse resources rather than call tools: its balance and its
// recent transactions. Each read is the matching read tool (check_balance, get_tx_history) through the same
// path as a tools/call — scope check, rate limit, the same JSON — so a resource can never show more than the
// key may see.
import {
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Resource,
  ResourceNotFoundError,
} from '@modelcontextprotocol/server';
import { serviceError } from '../http/errors.ts';
import type { FaceServices } from '../services/index.ts';
import type { AgentKey } from '../services/keys/keys.ts';
import { executeTool } from '../tools/execute.ts';
import type { ToolName } from '../tools/registry.ts';
import type { McpRequestContext } from './context.ts';

const RECENT_TRANSACTIONS = 20;

interface WalletResource extends Resource {
  tool: ToolName;
  params: Record<string, unknown>;
}

const RESOURCES: readonly WalletResource[] = [
  {
    uri: 'agent-wallet://wallet/balance',
    name: 'balance',
    title: 'Wallet balance',
    description:
      'This agent wallet’s balance, held amount, frozen flag and the room left under its caps (as check_balance).',
    mimeType: 'application/json',
    tool: 'check_balance',
    params: {},
  },
  {
    uri: 'agent-wallet://wallet/transactions/recent',
    name: 'recent-transactions',
    title: 'Recent transactions',
    description: `This agent wallet’s ${RECENT_TRANSACTIONS} newest transactions (as get_tx_history).`,
    mimeType: 'application/json',
    tool: 'get_tx_history',
    params: { limit: RECENT_TRANSACTIONS },
  },
];

/** The resources a key can read: both need the read scope. */
export function listResources(key: AgentKey): Resource[] {
  if (!key.scopes.includes('read')) return [];
  return RESOURCES.map(({ tool: _tool, params: _params, ...resource }) => resource);
}

export async function readResource(
  services: FaceServices,
  key: AgentKey,
  context: McpRequestContext,
  uri: string,
): Promise<ReadResourceResult> {
  const resource = RESOURCES.find((r) => r.uri === uri);
  if (resource === undefined) {
    const shown = uri.slice(0, 200);
    throw new ResourceNotFoundError(shown, `there is no resource ${shown}`);
  }
  let outcome: Awaited<ReturnType<typeof executeTool>>;
  try {
    await context.limitTool(resource.tool);
    outcome = await executeTool(services, {
      name: resource.tool,
      key,
      body: resource.params,
      headerIdempotencyKey: undefined,
      credential: context.credential,
    });
  } catch (thrown) {
    const error = serviceError(thrown, context.log, context.requestId);
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `${error.code}: ${error.message}`);
  }
  if (!outcome.ok)
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `${outcome.code}: ${outcome.message}`);
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(outcome.data) }] };
}

// Helpers for agent-side tests: keys, tool calls, balances.
import type { FastifyInstance } from 'fastify';
import { call, type Reply, type TestUser } from './http.ts';

export const OUTSIDE_ADDRESS = `0x${'ab'.repeat(20)}`;

export async function createKey(
  user: TestUser,
  walletId: string,
  body: Record<string, unknown> = { label: 'agent' },
) {
  const reply = await user.api.post(`/api/v1/agent-wallets/${walletId}/keys`, body);
  if (reply.status !== 201) throw new Error(`key creation failed: ${reply.raw}`);
  return reply.body.data.key as string;
}

export function tool(
  app: FastifyInstance,
  key: string,
  name: string,
  params: Record<string, unknown> = {},
  headers?: Record<string, string>,
): Promise<Reply> {
  return call(
    app,
    'POST',
    `/mcp/v1/tools/${name}`,
    { params },
    { token: key, ...(headers === undefined ? {} : { headers }) },
  );
}

export async function fund(user: TestUser, walletId: string, amount: string): Promise<void> {
  const reply = await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount });
  if (reply.status !== 200) throw new Error(`fund failed: ${reply.raw}`);
}

export async function balances(
  app: FastifyInstance,
  key: string,
): Promise<{ balance: string; heldBalance: string }> {
  const reply = await tool(app, key, 'check_balance');
  if (reply.status !== 200) throw new Error(`check_balance failed: ${reply.raw}`);
  return { balance: reply.body.data.balance, heldBalance: reply.body.data.heldBalance };
}

export async function addPolicy(
  user: TestUser,
  walletId: string,
  type: string,
  params: Record<string, unknown>,
) {
  const reply = await user.api.post(`/api/v1/agent-wallets/${walletId}/policies`, { type, params });
  if (reply.status !== 201) throw new Error(`policy failed: ${reply.raw}`);
  return reply.body.data.id as string;
}

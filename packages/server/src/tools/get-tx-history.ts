import { z } from 'zod';
import { success } from '../domain/outcome.ts';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '../services/context.ts';
import type { ToolDefinition } from './definition.ts';
import { optionalParam } from './optional-param.ts';
import { txHistoryOutput } from './outputs.ts';

const STATUSES = ['pending', 'processing', 'completed', 'rejected', 'expired', 'failed'] as const;

const input = z.strictObject({
  page: optionalParam(z.number().int().min(1).max(1_000_000)).describe('page number, from 1'),
  limit: optionalParam(z.number().int().min(1).max(PAGE_LIMIT_MAX)).describe(
    `1-${PAGE_LIMIT_MAX}, default ${PAGE_LIMIT_DEFAULT}`,
  ),
  status: optionalParam(z.enum(STATUSES)).describe('only transactions in this status'),
});

export const getTxHistoryTool: ToolDefinition<z.output<typeof input>> = {
  name: 'get_tx_history',
  scope: 'read',
  description:
    "This agent wallet's transactions, newest first: payments it made, payments it received, and funding or " +
    'withdrawals by its owner. Filter by status (pending = awaiting the owner’s approval).',
  input,
  output: txHistoryOutput,
  async run({ key, input: params, services }) {
    const page = { page: params.page ?? 1, limit: params.limit ?? PAGE_LIMIT_DEFAULT };
    const { transactions, total } = await services.transactions.ofAgentKey(key.walletId, params.status, page);
    return success({
      transactions,
      total,
      page: page.page,
      limit: page.limit,
    });
  },
};

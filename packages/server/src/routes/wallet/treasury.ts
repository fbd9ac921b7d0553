import { z } from 'zod';
import { defineRoute } from '../../http/route.ts';
import { amount } from '../../http/views.ts';
import { treasuryState } from '../../services/rail/treasury-state.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/wallet/treasury',
  auth: 'user',
  role: 'viewer',
  summary: 'Where the money rests, and what a breach of the server could take',
  description:
    'The `evm` rail only (404 elsewhere). In `hot` mode (TREASURY_MODE, the default) the service’s own key holds ' +
    'the whole treasury: `owners` is empty, `threshold` and `allowance` are null, and `atRisk` — what whoever took ' +
    'the server (its database, environment, keys and backups) could move — is all of it, equal to `float`. In ' +
    '`bounded` mode the money rests in `account`, a smart account the `owners` hold, and the chain lets the ' +
    'service’s key take at most `allowance.perPeriod` from it per period; `atRisk` is `float` plus ' +
    '`allowance.remaining`, read from the chain. 503 while the chain cannot be read.',
  tags: ['wallet'],
  response: z.object({
    mode: z.enum(['hot', 'bounded']),
    account: z.string().describe('the address that holds the money: in hot mode the service’s treasury key'),
    owners: z
      .array(z.string())
      .describe('the humans’ keys that own the account (bounded mode); empty when hot'),
    threshold: z.number().int().nullable().describe('owners’ signatures a change needs (bounded mode)'),
    allowance: z
      .object({
        perPeriod: amount,
        period: z.string().describe('TREASURY_ALLOWANCE_PERIOD, such as "1d"'),
        remaining: amount.describe('what the chain still lets the service take this period'),
        resetsAt: z
          .string()
          .nullable()
          .describe('when the next period starts; null until the owners have signed the delegation'),
      })
      .nullable()
      .describe(
        'what the chain lets the service move per period (bounded mode); null when nothing bounds it',
      ),
    float: amount.describe('USDC in the service’s own key'),
    atRisk: amount.describe('float + remaining allowance: what a breach of the server could take now'),
  }),
  handler: async ({ services }) => ({ data: await treasuryState(services) }),
});

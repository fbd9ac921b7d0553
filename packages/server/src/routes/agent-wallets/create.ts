import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { labelSchema } from '../../http/schemas.ts';
import { agentWalletView } from '../../http/views.ts';
import { AGENT_WALLETS_PER_USER_MAX } from '../../services/wallets/wallets.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/agent-wallets',
  auth: 'user',
  role: 'admin',
  summary: 'Create an agent wallet',
  description:
    'A wallet for one AI agent, with its own address, balance, policies and API keys. Starts empty. A user has at ' +
    `most ${AGENT_WALLETS_PER_USER_MAX} agent wallets (past that, 400).`,
  tags: ['agent-wallets'],
  body: z.strictObject({ label: labelSchema }),
  response: agentWalletView,
  successStatus: 201,
  handler: async ({ request, body, services }) => {
    const row = await services.wallets.createAgent(currentUser(request).tenantId, body.label);
    return { data: await services.agentWalletView(row) };
  },
});

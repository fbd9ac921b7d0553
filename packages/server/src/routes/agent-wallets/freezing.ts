import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { noBody, walletIdParams } from '../../http/schemas.ts';
import { agentWalletView } from '../../http/views.ts';

export function freezingRoute(action: 'freeze' | 'unfreeze') {
  return defineRoute({
    method: 'POST',
    url: `/api/v1/agent-wallets/:walletId/${action}`,
    auth: 'user',
    role: 'admin',
    summary: action === 'freeze' ? 'Freeze an agent wallet' : 'Unfreeze an agent wallet',
    description:
      action === 'freeze'
        ? 'Every write tool (send_payment, request_approval, x402_fetch, x402_sign, paid_fetch, mpp_sign) answers 403 WALLET_FROZEN until ' +
          'unfrozen. Reads still work, and the owner can still fund, withdraw, approve and reject. An approved x402 ' +
          'payment is not signed while frozen: it stays approved until unfrozen (given back if unused a day after ' +
          'approval). Freezing a frozen wallet changes nothing.'
        : 'Lets the agent write again. Unfreezing a wallet that is not frozen changes nothing.',
    tags: ['agent-wallets'],
    params: walletIdParams,
    body: noBody,
    response: agentWalletView,
    handler: async ({ request, params, services }) => {
      const userId = currentUser(request).tenantId;
      const row = await services.wallets.setFrozen(userId, params.walletId, action === 'freeze');
      return { data: await services.agentWalletView(row) };
    },
  });
}

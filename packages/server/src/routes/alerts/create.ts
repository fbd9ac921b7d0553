import { invalid } from '../../errors.ts';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { alertView, newAlertBody, newAlertDocumentation } from './schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/alerts',
  auth: 'user',
  role: 'admin',
  summary: 'Add an alert',
  description:
    'balance_below {amount}: `balance.low` once when the watched wallet’s balance falls below amount (the master ' +
    'wallet without walletId), re-armed when it is back at or above it. cap_used {percent}: `budget.threshold` ' +
    'once per cap when the agent wallet’s spending reaches that share of any of its spending caps, re-armed when ' +
    'it is back under (a rolling window moved on) or a calendar period begins. treasury_at_risk {amount} (evm rail): ' +
    '`treasury.at_risk` once when what a breach of the server could take (GET /api/v1/wallet/treasury’s atRisk) ' +
    'rises above amount, re-armed when it is back at or below; it takes no walletId. All are webhook events and ' +
    'emails. balance_below and treasury_at_risk take exactly amount, cap_used exactly percent (else 400).',
  tags: ['alerts'],
  body: newAlertBody,
  documentedBody: newAlertDocumentation,
  response: alertView,
  successStatus: 201,
  handler: async ({ request, body, services }) => {
    const wanted = body.type === 'cap_used' ? 'percent' : 'amount';
    const given = Object.keys(body.params);
    if (given.length !== 1 || given[0] !== wanted)
      throw invalid(`params: ${body.type} takes exactly {${wanted}}`);
    return { data: await services.alerts.create(currentUser(request).tenantId, body) };
  },
});

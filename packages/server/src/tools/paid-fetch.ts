import type { ToolDefinition } from './definition.ts';
import { paidFetchOutput } from './outputs.ts';
import { x402ServiceOf } from './x402-common.ts';
import { fetchInput, fetchParamsOf, fetchPublished } from './x402-fetch.ts';

export const paidFetchTool: ToolDefinition<typeof fetchInput._output> = {
  name: 'paid_fetch',
  scope: 'write',
  rails: ['evm'],
  description:
    'Fetch an HTTP resource that may ask for payment in any way this service pays (evm rail only): x402 (HTTP 402 ' +
    'with PAYMENT-REQUIRED) or MPP (HTTP 402 with WWW-Authenticate: Payment). On a 402 the cheapest payable offer ' +
    'is checked against maxAmount and decided like send_payment to the seller (every policy, cap and the approval ' +
    'threshold); if allowed, the service signs a USDC authorization and fetches again with it. Answers {status, ' +
    'headers, body, bodyEncoding, payment: {txId, status, protocol, scheme, amount, authorizedAmount, payTo, txHash}}; ' +
    'payment.status "pending" means the owner must approve, then call again with the same idempotencyKey.',
  input: fetchInput,
  published: () => ({ input: fetchPublished }),
  output: paidFetchOutput,
  run({ key, input: given, idempotencyKey, services, credential }) {
    return x402ServiceOf(services).paidFetch(key, fetchParamsOf(given, credential), idempotencyKey);
  },
};

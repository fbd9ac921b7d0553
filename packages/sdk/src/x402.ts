// The SDK's x402 signer adapter: hands this service to the x402 ecosystem's own clients (e.g. @x402/fetch's
// wrapFetchWithPayment) as the scheme that signs `exact` EVM payments. The client finds the 402 and retries
// with the header; this service decides the payment under the wallet's policies and signs from its treasury —
// no private key is ever in the agent's process. Structural, so the SDK keeps zero runtime dependencies:
//
//   const client = new x402Client();
//   client.register('eip155:*', x402Scheme(agent));
//   const paidFetch = wrapFetchWithPayment(fetch, client);
import type { AgentWalletClient } from './agent-client.ts';
import { newIdempotencyKey } from './http.ts';

/** The payment needs the owner's approval: approve it, then retry the request (the same key signs it then). */
export class X402ApprovalPendingError extends Error {
  readonly txId: string;
  constructor(txId: string) {
    super(`the x402 payment ${txId} awaits the wallet owner's approval; retry after it is approved`);
    this.name = 'X402ApprovalPendingError';
    this.txId = txId;
  }
}

export interface X402SchemeOptions {
  /** Stored with each payment. */
  memo?: string;
  /**
   * The idempotency key of a payment. By default every call is a new purchase (a fresh key), so buying the
   * same resource twice pays twice. Return a stable key per purchase to retry safely — and so that the retry
   * after an owner's approval signs the approved payment instead of asking for approval again.
   */
  idempotencyKey?: (requirements: Record<string, unknown>) => string;
}

/** A `SchemeNetworkClient` for `x402Client.register('eip155:*', …)`: scheme `exact`, signed by this service. */
export function x402Scheme(agent: AgentWalletClient, options: X402SchemeOptions = {}) {
  return {
    scheme: 'exact' as const,
    async createPaymentPayload(x402Version: number, requirements: Record<string, unknown>) {
      const key = options.idempotencyKey?.(requirements) ?? defaultKey(requirements);
      const signed = await agent.x402Sign({
        paymentRequirements: requirements,
        ...(typeof requirements.resource === 'string' ? { resource: requirements.resource } : {}),
        ...(options.memo === undefined ? {} : { memo: options.memo }),
        idempotencyKey: key,
      });
      if (signed.payload === null) throw new X402ApprovalPendingError(signed.txId);
      return { x402Version, payload: signed.payload.payload };
    },
  };
}

function defaultKey(r: Record<string, unknown>): string {
  return `x402:${String(r.payTo).slice(0, 42)}:${newIdempotencyKey()}`;
}

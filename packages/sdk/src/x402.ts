// The SDK's x402 signer adapter: hands this service to the x402 ecosystem's own clients (e.g. @x402/fetch's
// wrapFetchWithPayment) as the scheme that signs EVM payments — `exact` (an EIP-3009 authorization) or `upto`
// (metered: a Permit2 authorization for at most the requirement's amount). The client finds the 402 and retries
// with the header; this service decides the payment under the wallet's policies and signs from its treasury —
// no private key is ever in the agent's process. Structural, so the SDK keeps zero runtime dependencies:
//
//   const client = new x402Client();
//   client.register('eip155:*', x402Scheme(agent));
//   client.register('eip155:*', x402Scheme(agent, { scheme: 'upto' }));
//   const paidFetch = wrapFetchWithPayment(fetch, client);
//
// Either way the service answers x402_sign with the whole payment payload; the client wants its inner `payload`
// (`{signature, authorization}` for exact, `{signature, permit2Authorization}` for upto — what @x402/evm's own
// scheme clients return) and puts the selected requirement and the resource around it itself. The seller's
// declared extensions go to x402_sign too, and what the service answers of them (payment-identifier's id, stable
// for the payment) comes back as the payload's `extensions`, which the client merges into what it sends.
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

export type X402SchemeName = 'exact' | 'upto';

export interface X402SchemeOptions<S extends X402SchemeName = 'exact'> {
  /**
   * The x402 scheme this client signs: `exact` (the default) or `upto` — a metered price, where the requirement's
   * amount is a maximum the wallet holds and the seller settles what was used. Register one of each to pay both.
   */
  scheme?: S;
  /** Stored with each payment. */
  memo?: string;
  /**
   * The idempotency key of a payment. By default every call is a new purchase (a fresh key), so buying the
   * same resource twice pays twice. Return a stable key per purchase to retry safely — and so that the retry
   * after an owner's approval signs the approved payment instead of asking for approval again.
   */
  idempotencyKey?: (requirements: Record<string, unknown>) => string;
}

/**
 * A `SchemeNetworkClient` for `x402Client.register('eip155:*', …)`: scheme `exact` (or `options.scheme`), signed
 * by this service.
 */
export function x402Scheme<S extends X402SchemeName = 'exact'>(
  agent: AgentWalletClient,
  options: X402SchemeOptions<S> = {},
) {
  return {
    scheme: (options.scheme ?? 'exact') as S,
    async createPaymentPayload(
      x402Version: number,
      requirements: Record<string, unknown>,
      context?: { extensions?: Record<string, unknown> },
    ) {
      const key = options.idempotencyKey?.(requirements) ?? defaultKey(requirements);
      const signed = await agent.x402Sign({
        paymentRequirements: withDeclaredExtensions(x402Version, requirements, context?.extensions),
        ...(typeof requirements.resource === 'string' ? { resource: requirements.resource } : {}),
        ...(options.memo === undefined ? {} : { memo: options.memo }),
        idempotencyKey: key,
      });
      if (signed.payload === null) throw new X402ApprovalPendingError(signed.txId);
      const { extensions } = signed.payload;
      // What the service answered of the seller's extensions (payment-identifier's id): the client merges it in.
      return {
        x402Version,
        payload: signed.payload.payload,
        ...(isRecord(extensions) ? { extensions } : {}),
      };
    },
  };
}

/**
 * The requirement as a v2 402 answer carrying the seller's declared extensions, so the service can answer those it
 * knows (x402's payment-identifier); the bare requirement when the seller declared none.
 */
function withDeclaredExtensions(
  x402Version: number,
  requirements: Record<string, unknown>,
  extensions: Record<string, unknown> | undefined,
): Record<string, unknown> {
  if (x402Version !== 2 || extensions === undefined || Object.keys(extensions).length === 0)
    return requirements;
  return { x402Version, accepts: [requirements], extensions };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function defaultKey(r: Record<string, unknown>): string {
  return `x402:${String(r.payTo).slice(0, 42)}:${newIdempotencyKey()}`;
}

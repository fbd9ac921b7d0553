// The SDK's MPP adapter: hands this service to `mppx`'s own client (Mppx.create, its fetch wrapper and MCP
// client) as the `evm` `charge` method. The client finds the 402 and repeats the request with the credential;
// this service decides the payment under the wallet's policies and signs the EIP-3009 authorization from its
// treasury — no private key is ever in the agent's process. Structural, so the SDK keeps zero runtime
// dependencies:
//
//   const mppx = Mppx.create({ methods: [mppMethod(agent)], polyfill: false });
//   const answer = await mppx.fetch('https://api.example.com/report');
import type { AgentWalletClient } from './agent-client.ts';

/** The payment needs the owner's approval: approve it, then retry the request (the same key signs it then). */
export class MppApprovalPendingError extends Error {
  readonly txId: string;
  constructor(txId: string) {
    super(`the MPP payment ${txId} awaits the wallet owner's approval; retry after it is approved`);
    this.name = 'MppApprovalPendingError';
    this.txId = txId;
  }
}

/** A challenge as mppx's client hands it to a method: its id, and the rest as the seller sent it. */
export interface MppChallenge {
  id: string;
  method: string;
  intent: string;
  [field: string]: unknown;
}

export interface MppMethodOptions {
  /** Stored with each payment. */
  memo?: string;
  /**
   * The idempotency key of a payment. By default the challenge's id: one challenge is one payment, whatever the
   * retries. Return a stable key per purchase so that the retry after an owner's approval — which meets a new
   * challenge — signs the approved payment instead of asking for approval again.
   */
  idempotencyKey?: (challenge: MppChallenge) => string;
}

/** A client method for `Mppx.create({methods: [...]})`: `evm` `charge`, signed by this service (mpp_sign). */
export function mppMethod(agent: AgentWalletClient, options: MppMethodOptions = {}) {
  return {
    name: 'evm' as const,
    intent: 'charge' as const,
    async createCredential({ challenge }: { challenge: MppChallenge }): Promise<string> {
      const signed = await agent.mppSign({
        challenge,
        idempotencyKey: options.idempotencyKey?.(challenge) ?? `mpp:${challenge.id}`.slice(0, 255),
        ...(options.memo === undefined ? {} : { memo: options.memo }),
      });
      if (signed.authorization === null) throw new MppApprovalPendingError(signed.txId);
      return signed.authorization;
    },
  };
}

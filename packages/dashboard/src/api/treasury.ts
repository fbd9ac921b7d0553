// The owners' side of a bounded treasury (evm rail, TREASURY_MODE=bounded): what waits for their signatures,
// a signature handed in, and the revocation of the service's allowance. These routes exist on the evm rail only,
// so the SDK's wire types (generated from the sandbox's OpenAPI document) do not hold them: their shapes are
// written here, as docs/owners/treasury.md documents them. They go through ApiClient.request (rate limits, 401,
// step-up: the revocation and the change of owners ask for one).
import type { Requester } from './request.ts';

/** What each owner signs with eth_signTypedData_v4: a user operation of their account, in EIP-712 form. */
export interface SignRequest {
  typedData: {
    domain: { name: string; version: string; chainId: number; verifyingContract: string };
    types: Record<string, Array<{ name: string; type: string }>>;
    primaryType: string;
    message: Record<string, string>;
  };
  digest: string;
}

export type OwnersRequestStatus = 'awaiting_signatures' | 'submitted' | 'completed' | 'failed';

/** One request of the owners' account (GET /wallet/treasury/signatures). */
export interface OwnersRequest {
  /** The withdrawal it pays, or the request itself (a revocation): what a signature is handed in for. */
  id: string;
  kind: 'transfer' | 'revoke' | 'owners';
  status: OwnersRequestStatus;
  amount: string | null;
  toAddress: string | null;
  signRequest: SignRequest;
  signaturesNeeded: number;
  signedBy: string[];
  createdAt: string;
  expiresAt: string | null;
  /** A change of the owners: the owners and threshold the account holds once it is done; null otherwise. */
  change?: { owners: string[]; threshold: number } | null;
}

export interface OwnersRequestPage {
  items: OwnersRequest[];
  total: number;
  page: number;
  limit: number;
  nextCursor: string | null;
}

/** POST /wallet/treasury/signatures's answer. */
export interface SignatureProgress {
  id: string;
  status: OwnersRequestStatus;
  signaturesNeeded: number;
  signedBy: string[];
}

/** POST /wallet/treasury/revoke's answer (202): the revocation waits for the owners like a withdrawal. */
export interface AwaitingSignatures {
  id: string;
  status: 'awaiting_signatures';
  signRequest: SignRequest;
  signaturesNeeded: number;
}

/**
 * POST /wallet/treasury/owners's answer (202): the change waits for the current owners, or — the same change asked
 * again once enough of them signed — is already on its way (`submitted`).
 */
export interface OwnersChangeAnswer extends Omit<AwaitingSignatures, 'status'> {
  status: 'awaiting_signatures' | 'submitted';
}

export function treasuryApi(client: Requester) {
  return {
    requests: (query: { status?: OwnersRequestStatus; limit?: number } = {}) =>
      client.request<OwnersRequestPage>('GET', '/wallet/treasury/signatures', { query }),
    sign: (id: string, signature: string) =>
      client.request<SignatureProgress>('POST', '/wallet/treasury/signatures', { body: { id, signature } }),
    revokeAllowance: () => client.request<AwaitingSignatures>('POST', '/wallet/treasury/revoke'),
    /** Every owner after the change (0x addresses) and how many of them must sign then; step-up always. */
    changeOwners: (owners: string[], threshold: number) =>
      client.request<OwnersChangeAnswer>('POST', '/wallet/treasury/owners', { body: { owners, threshold } }),
  };
}

export type TreasuryApi = ReturnType<typeof treasuryApi>;

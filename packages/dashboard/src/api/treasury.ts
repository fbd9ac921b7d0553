// The owners' side of a bounded treasury (evm rail, TREASURY_MODE=bounded): what waits for their signatures, a
// signature handed in, the revocation of the service's allowance and a change of the owners. They go through
// ApiClient.request like the rest of api/ (rate limits, 401, step-up: the revocation and the change of owners ask
// for one). The answers' types are the SDK's wire types, generated from the server's every-rail OpenAPI document.
import type { WireOperations } from '@agent-wallet/sdk';
import type { Answer } from './custody.ts';
import type { Requester } from './request.ts';

/** GET /wallet/treasury/signatures's answer, and one request of the owners' account in it. */
export type OwnersRequestPage = Answer<'listTreasurySignatures'>;
export type OwnersRequest = OwnersRequestPage['items'][number];
export type OwnersRequestStatus = OwnersRequest['status'];
/** What each owner signs with eth_signTypedData_v4: a user operation of their account, in EIP-712 form. */
export type SignRequest = OwnersRequest['signRequest'];
/** POST /wallet/treasury/signatures's answer. */
export type SignatureProgress = Answer<'treasurySignatures'>;
/**
 * POST /wallet/treasury/revoke's answer (202): the revocation waits for the owners like a withdrawal (`submitted`
 * when one already on its way is answered again).
 */
export type RevocationRequest =
  WireOperations['treasuryRevoke']['responses'][202]['content']['application/json']['data'];

/**
 * POST /wallet/treasury/owners's answer (202): the change waits for the current owners, or — the same change asked
 * again once enough of them signed — is already on its way (`submitted`).
 */
export type OwnersChangeAnswer =
  WireOperations['treasuryOwners']['responses'][202]['content']['application/json']['data'];

export function treasuryApi(client: Requester) {
  return {
    requests: (query: { status?: OwnersRequestStatus; limit?: number } = {}) =>
      client.request<OwnersRequestPage>('GET', '/wallet/treasury/signatures', { query }),
    sign: (id: string, signature: string) =>
      client.request<SignatureProgress>('POST', '/wallet/treasury/signatures', { body: { id, signature } }),
    revokeAllowance: () => client.request<RevocationRequest>('POST', '/wallet/treasury/revoke'),
    /** Every owner after the change (0x addresses) and how many of them must sign then; step-up always. */
    changeOwners: (owners: string[], threshold: number) =>
      client.request<OwnersChangeAnswer>('POST', '/wallet/treasury/owners', { body: { owners, threshold } }),
  };
}

export type TreasuryApi = ReturnType<typeof treasuryApi>;

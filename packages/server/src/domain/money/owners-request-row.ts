// A request of the owners' account waiting for their signatures (contract section 14), as its row is stored
// (treasury_signature_requests; store/schema/chain.ts re-exports it). It lives on the domain floor because a
// payment that waits for the owners carries its request through the money batch's pure decision to the write that
// stores both in one transaction: one type from chain/bounded's preparation to the insert, no cast between.
export type SignatureRequestStatus = 'awaiting_signatures' | 'submitted' | 'completed' | 'failed';

export interface TreasurySignatureRequestsTable {
  id: string;
  chain_id: bigint;
  account: string;
  /** `owners`: a change of the account's owners and threshold (updateMultiSigParameters). */
  kind: 'transfer' | 'revoke' | 'owners';
  /** The withdrawal (or payment) this transfer pays; null for a revocation or a change of owners. */
  transaction_id: string | null;
  to_address: string | null;
  amount_micros: bigint | null;
  operation_json: string;
  digest: string;
  signatures_json: string;
  signatures_needed: bigint;
  status: SignatureRequestStatus;
  outbox_id: string | null;
  created_at_ms: bigint;
  updated_at_ms: bigint;
}

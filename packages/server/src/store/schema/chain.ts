// Tables of the evm rail: its settings, cursors, deposits seen on chain, the outbox of payouts and sweeps, leases.

export interface ServiceSettingsTable {
  key: string;
  value: string;
}

export interface ChainCursorsTable {
  name: string;
  block_number: bigint;
}

export type ChainDepositStatus = 'pending' | 'credited';

export interface ChainDepositsTable {
  id: string;
  chain_id: bigint;
  tx_hash: string;
  log_index: bigint;
  block_number: bigint;
  wallet_id: string;
  from_address: string;
  to_address: string;
  amount_micros: bigint;
  status: ChainDepositStatus;
  deposit_id: string | null;
  sweep_id: string | null;
  created_at_ms: bigint;
  updated_at_ms: bigint;
}

/**
 * payout (to an outside address), sweep (a deposit address into the treasury), approve (the treasury's one-time
 * USDC approval of Permit2 for x402 `upto`, amount 0, to Permit2); bounded mode: refill (the float, by redeeming
 * the delegation), owners_op (an operation of the owners' account they signed at their threshold) and
 * float_return (what the float holds above its ceiling, back into the owners' account: a hot treasury's switch).
 */
export type OutboxKind = 'payout' | 'sweep' | 'approve' | 'refill' | 'owners_op' | 'float_return';
/** awaiting_signatures: a payout the owners' account makes once they sign (bounded mode); then queued. */
export type OutboxStatus = 'awaiting_signatures' | 'queued' | 'sent' | 'completed' | 'failed';

export interface ChainOutboxTable {
  id: string;
  kind: OutboxKind;
  transaction_id: string | null;
  /** null for a refill: it belongs to no wallet. */
  wallet_id: string | null;
  from_address: string;
  to_address: string;
  amount_micros: bigint;
  status: OutboxStatus;
  nonce: bigint | null;
  raw_tx: string | null;
  tx_hashes_json: string;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  mined_tx_hash: string | null;
  mined_block: bigint | null;
  authorization_json: string | null;
  authorization_nonce: string | null;
  attempts: bigint;
  last_error: string | null;
  sent_at_ms: bigint | null;
  created_at_ms: bigint;
  updated_at_ms: bigint;
}

export interface ChainLeasesTable {
  name: string;
  holder: string;
  expires_at_ms: bigint;
}

export type TreasuryDelegationStatus = 'active' | 'revoked';

export interface TreasuryDelegationsTable {
  id: string;
  chain_id: bigint;
  account: string;
  delegate: string;
  delegation_hash: string;
  delegation_json: string;
  allowance_micros: bigint;
  period_seconds: bigint;
  start_seconds: bigint;
  status: TreasuryDelegationStatus;
  created_at_ms: bigint;
  revoked_at_ms: bigint | null;
}

export type {
  SignatureRequestStatus,
  TreasurySignatureRequestsTable,
} from '../../domain/money/owners-request-row.ts';

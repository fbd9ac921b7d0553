// Wire shapes of the REST API (contract section 3). Amounts are decimal strings, timestamps ISO-8601 UTC.

export interface User {
  id: string;
  email: string;
  createdAt: string;
}

export interface AuthResult {
  user: User;
  token: string;
}

export interface Health {
  status: 'ok' | 'degraded';
  version: string;
  database: string;
  storage?: string;
  rail: string;
  redis?: string;
  /** `evm` rail only: null when the chain cannot be read. */
  treasury?: { address: string; gasWei: string; usdc: string } | null;
  /** `evm` rail with an explorer configured: `<explorerUrl>/tx/<hash>` shows a transaction. No trailing slash. */
  explorerUrl?: string;
  /** `evm` rail: blocks a deposit waits before it is credited. */
  confirmations?: number;
  reasons?: string[];
}

export interface MasterWallet {
  id: string;
  address: string;
  balance: string;
  currency: string;
  createdAt: string;
}

export interface AgentWallet {
  id: string;
  label: string | null;
  address: string;
  balance: string;
  heldBalance: string;
  currency: string;
  frozen: boolean;
  dailyCapRemaining: string | null;
  totalCapRemaining: string | null;
  pendingApprovals: number;
  createdAt: string;
  updatedAt: string;
}

export interface Deposit {
  id: string;
  amount: string;
  currency: string;
  rail: string;
  txHash: string | null;
  createdAt: string;
}

/** A USDC transfer the chain shows but that is not credited yet (`evm` rail). */
export interface PendingDeposit {
  txHash: string;
  logIndex: number;
  walletId: string;
  address: string;
  amount: string;
  currency: 'USDC';
  blockNumber: string;
  /** Blocks deep now. */
  confirmations: number;
  /** Credited at this depth. */
  confirmationsRequired: number;
  seenAt: string;
}

export interface SandboxDeposit extends Deposit {
  /** Master wallet balance after the deposit. */
  balance: string;
}

export interface Violation {
  policyId: string;
  policyType: string;
  reason: string;
}

export const TX_STATUSES = ['pending', 'processing', 'completed', 'rejected', 'expired', 'failed'] as const;
export type TxStatus = (typeof TX_STATUSES)[number];

export interface Transaction {
  id: string;
  walletId: string;
  type: 'payment' | 'incoming' | 'fund' | 'withdraw';
  status: TxStatus;
  amount: string;
  currency: string;
  toAddress: string | null;
  memo: string | null;
  reason: string | null;
  rail: string | null;
  txHash: string | null;
  rejectionReason: string | null;
  violations: Violation[] | null;
  initiatedBy: string;
  expiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface TxEvent {
  status: string;
  actor: string;
  note: string | null;
  at: string;
}

export interface TransactionDetail extends Transaction {
  events: TxEvent[];
}

export interface Movement {
  transaction: Transaction;
  /** The agent wallet after the move (the server may leave out caps and pendingApprovals here). */
  wallet: Partial<AgentWallet> & { id: string };
  masterBalance: string;
}

export type Scope = 'read' | 'write';
export type KeyStatus = 'active' | 'rotating' | 'revoked' | 'expired';

export interface ApiKey {
  id: string;
  prefix: string;
  label: string;
  scopes: Scope[];
  walletId: string;
  status: KeyStatus;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  rotatedToKeyId: string | null;
}

export interface CreatedKey {
  id: string;
  key: string;
  prefix: string;
  label: string;
  scopes: Scope[];
  walletId: string;
  createdAt: string;
  expiresAt: string | null;
}

export interface RotatedKey extends CreatedKey {
  previousKey: ApiKey;
}

export const POLICY_TYPES = [
  'spend_cap_per_tx',
  'spend_cap_daily',
  'spend_cap_total',
  'address_allowlist',
  'require_approval_above',
] as const;
export type PolicyType = (typeof POLICY_TYPES)[number];

export type PolicyParams = { limit: string } | { amount: string } | { addresses: string[] };

export interface Policy {
  id: string;
  walletId: string;
  type: PolicyType;
  params: Record<string, unknown>;
  active: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  limit: number;
}

export interface TxPage {
  transactions: Transaction[];
  total: number;
  page: number;
  limit: number;
}

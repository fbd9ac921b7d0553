// The owner's REST API: sessions, wallets, deposits, transactions, keys.
import type {
  Address,
  Amount,
  Currency,
  PageOptions,
  PolicyViolation,
  Rail,
  Scope,
  Timestamp,
  TransactionStatus,
  TransactionType,
} from './common.ts';
import type { PaidRequestFields } from './tools.ts';

export interface User {
  id: string;
  email: string;
  createdAt: Timestamp;
}

/** A member's role in their organization (contract section 9); each role can do all the ones after it can. */
export type MemberRole = 'owner' | 'admin' | 'approver' | 'viewer';

/** signup / login data. */
export interface Session {
  user: User;
  /** JWT, valid for 7 days. The ManagementClient keeps it and sends it from then on. */
  token: string;
}

export interface Health {
  status: 'ok' | 'degraded';
  version: string;
  database: 'up' | 'down';
  storage: 'sqlite' | 'postgres';
  /** `sandbox` on a server with simulated money. */
  rail: string;
  redis?: 'up' | 'down';
  /** `evm` rail with an explorer configured: `<explorerUrl>/tx/<hash>` shows a transaction. */
  explorerUrl?: string;
  /** `evm` rail: blocks a deposit waits before it is credited. */
  confirmations?: number;
}

export interface MasterWallet {
  id: string;
  address: Address;
  balance: Amount;
  currency: Currency;
  createdAt: Timestamp;
}

export interface WalletBalance {
  balance: Amount;
  currency: Currency;
}

export interface Deposit {
  id: string;
  amount: Amount;
  currency: Currency;
  rail: Rail;
  txHash: string | null;
  createdAt: Timestamp;
}

export interface SandboxDeposit extends Deposit {
  /** Master wallet balance after the deposit. */
  balance: Amount;
}

export interface AgentWallet {
  id: string;
  label: string | null;
  address: Address;
  balance: Amount;
  heldBalance: Amount;
  currency: Currency;
  frozen: boolean;
  dailyCapRemaining: Amount | null;
  totalCapRemaining: Amount | null;
  /** Payments of this wallet awaiting approval. */
  pendingApprovals: number;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** A transaction as the owner sees it over REST. */
export interface Transaction {
  id: string;
  walletId: string;
  type: TransactionType;
  status: TransactionStatus;
  amount: Amount;
  currency: Currency;
  toAddress: Address | null;
  memo: string | null;
  /** The agent's reason on a request_approval. */
  reason: string | null;
  rail: Rail | null;
  txHash: string | null;
  rejectionReason: string | null;
  /** The policies a denied payment violated, or that a held approval would violate. */
  violations: PolicyViolation[] | null;
  /**
   * `"user:<id>"` or `"key:<id>"` of this account; `"chain"` for an on-chain deposit; `"external"` for an internal
   * payment from another account (its key and user are not shown).
   */
  initiatedBy: string;
  /** When an unanswered approval expires. */
  expiresAt: Timestamp | null;
  /** `type: "x402"`: the paid URL without its query (e.g. `https://api.example.com/v1/report`). */
  resource: string | null;
  /** A payment that was held: how many distinct members must approve it (1 unless require_approvals); else null. */
  approvalsRequired: number | null;
  /** Who approved it and when, oldest first. */
  approvals: Array<{ memberId: string; email: string; at: Timestamp }>;
  /** Paid requests only (`type: "x402"`): the protocol, scheme, authorized amount and receipt. */
  protocol?: PaidRequestFields['protocol'];
  scheme?: PaidRequestFields['scheme'];
  authorizedAmount?: Amount;
  receipt?: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface TransactionEvent {
  status: TransactionStatus;
  /** `"user:<id>"`, `"key:<id>"`, `"system"`, `"chain"`, or `"external"` (another account paid this wallet). */
  actor: string;
  note: string | null;
  at: Timestamp;
}

export interface TransactionWithEvents extends Transaction {
  /** The audit trail: every state change, oldest first. */
  events: TransactionEvent[];
}

export interface TransactionListOptions extends PageOptions {
  status?: TransactionStatus;
}

export interface MoveParams {
  amount: Amount;
  /** Makes the call safe to retry (also automatically, with `maxRetries`): the move happens once. */
  idempotencyKey?: string;
}

/** fund / withdraw data. */
export interface Movement {
  transaction: Transaction;
  wallet: AgentWallet;
  masterBalance: Amount;
}

export interface CreateKeyParams {
  label: string;
  /** Default `["read", "write"]`. */
  scopes?: Scope[] | 'read' | 'write' | 'read,write';
  /** ISO-8601 date-time (or a Date): the key is refused from then on. */
  expiresAt?: string | Date;
}

export type KeyStatus = 'active' | 'rotating' | 'revoked' | 'expired';

/** A key as listed: never the key itself. */
export interface ApiKey {
  id: string;
  /** `oauth`: a connection an owner allowed an agent host by OAuth (its `label` is the client's name). */
  type: 'api_key' | 'oauth';
  /** The OAuth client's name; null for an API key. */
  clientName: string | null;
  prefix: string;
  label: string;
  scopes: Scope[];
  walletId: string;
  status: KeyStatus;
  createdAt: Timestamp;
  expiresAt: Timestamp | null;
  /** When the key stops (stopped) working; in the future during a rotation grace. */
  revokedAt: Timestamp | null;
  lastUsedAt: Timestamp | null;
  rotatedToKeyId: string | null;
}

/** A new key: `key` is in this response only, never again. */
export interface CreatedApiKey {
  id: string;
  /** The API key (`svc_live_…`). Store it now: it cannot be recovered. */
  key: string;
  prefix: string;
  label: string;
  scopes: Scope[];
  walletId: string;
  createdAt: Timestamp;
  expiresAt: Timestamp | null;
}

export interface RotatedApiKey extends CreatedApiKey {
  /** The old key, working until its `revokedAt` (now + grace). */
  previousKey: ApiKey;
}

export interface RotateKeyParams {
  /** How long the old key keeps working: default 3600, 0 = at once, at most 7 days. */
  gracePeriodSeconds?: number;
}

// ---- The master wallet's withdrawals (contract section 8) ----

/** An address of the withdrawal book: usable from `activatesAt` (WITHDRAWAL_ADDRESS_DELAY_SECONDS after it was added). */
export interface WithdrawalAddress {
  id: string;
  /** EIP-55. */
  address: Address;
  label: string;
  status: 'pending' | 'active';
  activatesAt: Timestamp;
  createdAt: Timestamp;
}

export interface MasterWithdrawalParams {
  /** An active address of the withdrawal book. */
  toAddress: Address;
  amount: Amount;
  memo?: string;
  /** Generated when omitted: a retried withdrawal never moves the money twice. */
  idempotencyKey?: string;
}

/** A withdrawal from the master wallet: `processing` on `evm` until its payout is confirmed. */
export interface MasterWithdrawal {
  id: string;
  toAddress: Address;
  amount: Amount;
  memo: string | null;
  status: 'processing' | 'completed' | 'failed';
  txHash: string | null;
  /** `sandbox`, `evm`, or `internal` (an address of this service). */
  rail: string;
  createdAt: Timestamp;
}

// The state a batch of money commands is decided against, the effects the decisions collect, and the one pure
// ledger step they share: a balanced transfer checked against the in-memory balances. See batch.ts.
import { assert } from '../../errors.ts';
import type { Outcome } from '../outcome.ts';
import type { Period } from '../policies/calendar-period.ts';
import type { ActivePolicy, WindowName, WindowSpending } from '../policies/policies.ts';
import type { NewDeposit, NewTransaction, TransactionRecord } from '../records.ts';
import type { EventType } from '../webhooks/webhook-events.ts';
import {
  assertBalanced,
  BALANCE_MAX_MICROS,
  BalanceLimitError,
  keepsRunningBalance,
  type Leg,
} from './accounts.ts';
import type { ApprovalMark } from './approvals.ts';
import type { TreasurySignatureRequestsTable } from './owners-request-row.ts';

/** A payment's row as stored (transactions). */
export type HeldRow = TransactionRecord;

/** A status change of an existing transaction: one audit event, and the row as it is afterwards. */
export interface TransitionSpec {
  before: HeldRow;
  after: HeldRow;
  actor: string;
  note: string | null;
}

/** A webhook event about an existing payment: the row it reports, and its approvals where they are news. */
export type Notice = { type: EventType; row: HeldRow; approvals?: readonly ApprovalMark[] };

/** An x402 payment (x402_fetch, x402_sign): paid on chain by an authorization signed after the commit. */
export interface X402Details {
  /** The paid URL without its query. */
  resource: string;
  /** The payment method (payments/registry.ts) whose offer this is, and its protocol version. */
  method: string;
  version: number;
  requirementJson: string;
  resourceJson: string | null;
  /** The seller's declared extensions the payload answers (x402 v2 payment-identifier); null when none. */
  extensionsJson: string | null;
  /** The authorization's nonce and validity, chosen before the commit so a crash after signing can resume. */
  nonce: string;
  validBeforeS: bigint;
  /** What the treasury signs for it (the method's): an EIP-3009 or a Permit2 authorization. */
  authorization: 'eip3009' | 'permit2';
}

export interface WalletState {
  id: string;
  userId: string;
  kind: 'agent' | 'master';
  address: string;
  label: string | null;
  createdAtMs: number;
  updatedAtMs: number;
  frozen: boolean;
  availableMicros: bigint;
  heldMicros: bigint;
  /** Payments completed, processing or pending: what a total cap counts. */
  spentMicros: bigint;
  /** The same in the last 24 hours before the batch's first command (only for wallets with a daily cap). */
  spent24hMicros: bigint;
  /** The same in the rolling windows the wallet's window policies name (loaded only for those). */
  windows: WindowTotals;
  policies: ActivePolicy[];
  /** Payments awaiting approval (loaded for the agent wallets a fund or withdraw answers with). */
  pendingCount: number;
}

/**
 * Spending and payment counts in rolling windows ending at the batch's first command, and spending per
 * recipient for the batch's recipients. Only what the wallet's policies name is loaded; anything else asked for
 * is a bug (asserted). Decisions move them, so later commands of the batch see earlier ones.
 */
export interface WindowTotals {
  spent: Map<WindowName, bigint>;
  count: Map<WindowName, number>;
  /** `${window}\n${address}` → spending to that recipient in the window. */
  toRecipient: Map<string, bigint>;
  /** periodKey(period, timezone) → spending since that calendar period began (spend_cap_period). */
  periods: Map<string, bigint>;
  /** window → the wallet's denials (policy or balance) in it, for its auto_freeze policies. */
  denials: Map<WindowName, number>;
}

export const periodKey = (period: Period, timezone: string) => `${period}\n${timezone}`;

export const recipientKey = (window: WindowName, address: string) => `${window}\n${address}`;

export function emptyWindows(): WindowTotals {
  return {
    spent: new Map(),
    count: new Map(),
    toRecipient: new Map(),
    periods: new Map(),
    denials: new Map(),
  };
}

/** The policies' view of the totals: asking for a window that was not loaded is a bug. */
export function windowSpending(totals: WindowTotals): WindowSpending {
  const loaded = <T>(value: T | undefined, what: string): T => {
    assert(value !== undefined, `${what} was not loaded for this batch`);
    return value;
  };
  return {
    spentMicros: (window) => loaded(totals.spent.get(window), `spending in ${window}`),
    count: (window) => loaded(totals.count.get(window), `payments in ${window}`),
    spentToMicros: (address, window) =>
      loaded(totals.toRecipient.get(recipientKey(window, address)), `spending to ${address} in ${window}`),
    spentInPeriodMicros: (period, timezone) =>
      loaded(totals.periods.get(periodKey(period, timezone)), `spending this ${period} in ${timezone}`),
  };
}

/** A payment that counts as spent moves every loaded window (and its recipient's). */
export function recordInWindows(totals: WindowTotals, amountMicros: bigint, toAddress: string): void {
  for (const [window, spent] of totals.spent) totals.spent.set(window, spent + amountMicros);
  for (const [window, count] of totals.count) totals.count.set(window, count + 1);
  for (const [key, spent] of totals.periods) totals.periods.set(key, spent + amountMicros);
  for (const [key, spent] of totals.toRecipient) {
    if (key.endsWith(`\n${toAddress}`)) totals.toRecipient.set(key, spent + amountMicros);
  }
}

export interface StoredKey {
  fingerprint: string;
  outcome: Outcome<unknown>;
  createdAtMs: number;
}

export interface BatchState {
  wallets: Map<string, WalletState>;
  /** Lower-case address → wallet id, for every wallet of this service a command pays. */
  walletIdByAddress: Map<string, string>;
  /** User id → that user's master wallet id, for the users whose master a command moves money of. */
  masterIdByUser: Map<string, string>;
  /** `scope \n key` → the stored outcome. */
  keys: Map<string, StoredKey>;
  /** The payments approve, reject and expire commands name, by id, as they stand after earlier commands. */
  held: Map<string, HeldRow>;
  /** The approvals those payments hold so far (require_approvals), oldest first. */
  approvals: Map<string, ApprovalMark[]>;
}

export interface BatchContext {
  railName: string;
  /**
   * true: the rail settles at once (sandbox: `completed`); false: a payment out is `processing` and the batch
   * writes an outbox row in the same database transaction for the rail's sender (evm).
   */
  railSettlesAtOnce: boolean;
  approvalTtlMs: number;
  newId: (prefix: 'tx' | 'ltx' | 'dep') => string;
  /** How a fund or withdraw answers (the API's views, built by the service layer from what was decided). */
  movementData: (record: RecordSpec, agent: WalletState, masterAvailableMicros: bigint) => unknown;
}

/** A transaction record the batch creates, with its id chosen (the ledger entries reference it). */
export interface RecordSpec extends NewTransaction {
  id: string;
  type: 'payment' | 'incoming' | 'fund' | 'withdraw';
  /** A payment of a master wallet: the owner's withdrawal (its webhook events are `withdrawal.*`). Not stored. */
  withdrawal?: true;
  status: 'completed' | 'processing' | 'pending' | 'rejected';
  toAddress: string;
  rail: string;
}

/** A payment handed to an outside rail that sends it later: the outbox row (chain_outbox) of the evm rail. */
export interface PayoutSpec {
  transactionId: string;
  walletId: string;
  /** Lower-case address. */
  toAddress: string;
  amountMicros: bigint;
  nowMs: number;
  /** Bounded mode: more than the float and the allowance can pay; it waits for the owners' signatures. */
  awaitingOwners?: true;
}

/**
 * Bounded mode: a payment the float and the whole remaining allowance cannot cover waits for the owners'
 * signatures (domain/money/treasury-cover.ts). The request they sign needs the chain (its operation's nonce), so
 * it is prepared before the batch and written with the pending payment — or dropped when the payment is decided
 * otherwise (denied, held for approval, refused): one request per payment, never one for a replayed key.
 */
export interface OwnersWait {
  /** The owners' request as chain/bounded/owners-requests.ts prepared it, its payment not yet named. */
  request: TreasurySignatureRequestsTable;
}

/** An owners' request to store, with the pending payment it pays. */
export interface OwnersRequestSpec {
  transactionId: string;
  request: OwnersWait['request'];
}

/** The state of a signed paid request, by what was signed (see X402State in store/schema/money.ts). */
export type SignedState = 'signed' | 'permit_signed';

export function signedStateOf(authorization: X402Details['authorization']): SignedState {
  return authorization === 'permit2' ? 'permit_signed' : 'signed';
}

export function isSignedState(state: string): state is SignedState {
  return state === 'signed' || state === 'permit_signed';
}

/** An x402 payment's row (x402_payments), written with its transaction record. */
export interface X402Spec {
  transactionId: string;
  walletId: string;
  state: SignedState | 'awaiting_approval';
  details: X402Details;
  /** Lower-case address. */
  payTo: string;
  amountMicros: bigint;
  nowMs: number;
}

/** What a batch moves in the ledger: written by ledger/ alone (ledgerWriteSteps), the only writer of balances. */
export type LedgerEffects = Pick<BatchEffects, 'ledgerTransactions' | 'entries' | 'balanceDeltas'>;

export interface BatchEffects {
  ledgerTransactions: Array<{ id: string; kind: string; referenceId: string; nowMs: number }>;
  entries: Array<{
    transactionId: string;
    leg: number;
    accountId: string;
    amountMicros: bigint;
    nowMs: number;
  }>;
  /** Net change per account with a running balance. */
  balanceDeltas: Map<string, bigint>;
  records: RecordSpec[];
  deposits: NewDeposit[];
  payouts: PayoutSpec[];
  x402: X402Spec[];
  idempotency: Array<{
    scope: string;
    key: string;
    fingerprint: string;
    outcome: Outcome<unknown>;
    nowMs: number;
  }>;
  /** Status changes of existing payments (approve, reject, expire), in order. */
  transitions: TransitionSpec[];
  /** Webhook events about existing payments, with the row each reports. */
  notices: Notice[];
  /** x402 payments approved: their x402_payments row moves from awaiting_approval to approved. */
  x402Approved: Array<{ transactionId: string; nowMs: number }>;
  /** Owners' requests of payments that wait for their signatures (treasury_signature_requests). */
  ownersRequests: OwnersRequestSpec[];
  /** Members' approvals to store (transaction_approvals). */
  approvals: Array<{ transactionId: string } & ApprovalMark>;
  /** Denials of wallets with an auto_freeze policy, to count in its window (payment_denials). */
  denials: Array<{ walletId: string; atMs: number }>;
  /** Wallets an auto_freeze policy froze in this batch. */
  freezes: FreezeSpec[];
}

/** A breaker that tripped: the wallet, the policy, and the denials it counted in its window. */
export interface FreezeSpec {
  walletId: string;
  userId: string;
  policyId: string;
  denials: number;
  window: WindowName;
  nowMs: number;
}

/** The writer's answer to a money command: its outcome, and whether it was replayed from its key. */
export interface CommandAnswer {
  outcome: Outcome<unknown>;
  replayed: boolean;
}

export type CommandResult = { ok: true; value: CommandAnswer } | { ok: false; error: unknown };

export function emptyEffects(): BatchEffects {
  return {
    ledgerTransactions: [],
    entries: [],
    balanceDeltas: new Map(),
    records: [],
    deposits: [],
    payouts: [],
    x402: [],
    idempotency: [],
    transitions: [],
    notices: [],
    x402Approved: [],
    ownersRequests: [],
    approvals: [],
    denials: [],
    freezes: [],
  };
}

export const keyOf = (scope: string, key: string) => `${scope}\n${key}`;

/** Decides every command in order against `state` (which it updates) and collects the effects. */
/**
 * One balanced ledger transaction: refused (thrown, before any effect) when a debit would overdraw or a credit
 * pass the balance bound; otherwise its entries, in account-id order, and the balance changes are collected and
 * the in-memory balances move.
 */
export function transfer(
  state: BatchState,
  context: BatchContext,
  effects: BatchEffects,
  spec: { kind: string; referenceId: string; nowMs: number },
  legs: Leg[],
): string {
  assertBalanced(legs);
  const ordered = [...legs].sort((a, b) => (a.accountId < b.accountId ? -1 : 1));
  const tracked = ordered.filter((leg) => keepsRunningBalance(leg.accountId));
  for (const leg of tracked) checkLeg(state, leg);
  const id = context.newId('ltx');
  effects.ledgerTransactions.push({ id, ...spec });
  for (const [index, leg] of ordered.entries()) {
    effects.entries.push({
      transactionId: id,
      leg: index,
      accountId: leg.accountId,
      amountMicros: leg.amountMicros,
      nowMs: spec.nowMs,
    });
  }
  for (const leg of tracked) {
    effects.balanceDeltas.set(
      leg.accountId,
      (effects.balanceDeltas.get(leg.accountId) ?? 0n) + leg.amountMicros,
    );
    moveBalance(state, leg);
  }
  return id;
}

function checkLeg(state: BatchState, leg: Leg): void {
  const after = balanceOf(state, leg.accountId) + leg.amountMicros;
  assert(after >= 0n, `${leg.accountId} would go negative`);
  if (after > BALANCE_MAX_MICROS) throw new BalanceLimitError(leg.accountId);
}

function balanceOf(state: BatchState, accountId: string): bigint {
  const [walletId, kind] = accountId.split(':') as [string, string];
  const wallet = state.wallets.get(walletId);
  assert(wallet !== undefined, `account ${accountId} of a wallet the batch did not load`);
  return kind === 'hold' ? wallet.heldMicros : wallet.availableMicros;
}

function moveBalance(state: BatchState, leg: Leg): void {
  const [walletId, kind] = leg.accountId.split(':') as [string, string];
  const wallet = state.wallets.get(walletId)!;
  if (kind === 'hold') wallet.heldMicros += leg.amountMicros;
  else wallet.availableMicros += leg.amountMicros;
}

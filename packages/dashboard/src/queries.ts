// Server state through TanStack Query: query keys, how long an answer is reused, the hooks views read with, the
// one poll (GET /agent-wallets every 15 s while the tab is visible) and how a mutation's answer is written back.
import type {
  AgentWallet,
  Deposit,
  ManagementClient,
  MasterWallet,
  Movement,
  Page,
  Transaction,
  TransactionPage,
} from '@agent-wallet/sdk';
import {
  type InfiniteData,
  QueryClient,
  type QueryKey,
  useInfiniteQuery,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { BucketBudget } from './api/client.ts';
import { type ApiError, toApiError } from './api/errors.ts';
import { FULL_LIST_LIMIT } from './api/wire.ts';
import { useApp } from './app-context.ts';

export const K = {
  me: ['me'] as const,
  organization: ['organization'] as const,
  members: ['members'] as const,
  invitations: ['invitations'] as const,
  audit: (page: number, walletId: string, actor: string) => ['audit', page, walletId, actor] as const,
  auditAll: ['audit'] as const,
  master: ['master'] as const,
  deposits: (page: number) => ['deposits', page] as const,
  depositsAll: ['deposits'] as const,
  pendingDeposits: ['pendingDeposits'] as const,
  /** evm rail: where the treasury rests and what a breach of the server could move. */
  treasury: ['treasury'] as const,
  /** evm rail, bounded treasury: what waits for the owners' signatures, and what they signed lately. */
  ownersRequests: ['ownersRequests'] as const,
  agentWallets: ['agentWallets'] as const,
  agentWallet: (walletId: string) => ['agentWallet', walletId] as const,
  keys: (walletId: string) => ['keys', walletId] as const,
  policies: (walletId: string) => ['policies', walletId] as const,
  alerts: (walletId: string) => ['alerts', walletId] as const,
  policyChanges: (walletId: string, page: number) => ['policyChanges', walletId, page] as const,
  policyChangesAll: (walletId: string) => ['policyChanges', walletId] as const,
  webhooks: ['webhooks'] as const,
  deliveries: (endpointId: string, page: number) => ['deliveries', endpointId, page] as const,
  /** A wallet's transactions, newest first, in pages of ACTIVITY_PAGE_SIZE (an infinite query). */
  activity: (walletId: string) => ['activity', walletId] as const,
  tx: (walletId: string, txId: string) => ['tx', walletId, txId] as const,
  pending: (walletId: string) => ['pending', walletId] as const,
  // The owner's custody (Security page, withdrawals): api/custody.ts.
  mfa: ['mfa'] as const,
  passkeys: ['passkeys'] as const,
  sessions: ['sessions'] as const,
  securityEvents: (page: number) => ['securityEvents', page] as const,
  securityEventsAll: ['securityEvents'] as const,
  withdrawalAddresses: ['withdrawalAddresses'] as const,
  withdrawals: (page: number) => ['withdrawals', page] as const,
  withdrawalsAll: ['withdrawals'] as const,
};

/** How long an answer is reused before a view that needs it loads it again (ms). */
export const STALE = {
  master: 30_000,
  agentWallets: 15_000,
  details: 60_000,
  transactions: 30_000,
  pending: 30_000,
  txDetail: 60_000,
  pendingDeposits: 5_000,
  treasury: 30_000,
  ownersRequests: 10_000,
  policyChanges: 30_000,
  webhooks: 60_000,
  // An alert's firing state moves with payments: asked again soon when the card is shown again.
  alerts: 15_000,
  deliveries: 10_000,
  security: 30_000,
  withdrawals: 30_000,
  me: 60_000,
  // Members join through links sent outside the dashboard: a visit to a page naming them asks again soon.
  members: 5_000,
  audit: 15_000,
};

export const POLL_INTERVAL_MS = 15_000;
/** Deposits on their way (evm rail): their confirmation count moves with every block. */
export const DEPOSIT_POLL_INTERVAL_MS = 5_000;
/** Skip a poll when the bucket has fewer requests left than this: they are the person's. */
export const POLL_RESERVE = 6;
export const DEPOSITS_PAGE_SIZE = 10;
export const POLICY_CHANGES_PAGE_SIZE = 10;
export const DELIVERIES_PAGE_SIZE = 20;
export const SECURITY_EVENTS_PAGE_SIZE = 10;
export const WITHDRAWALS_PAGE_SIZE = 10;
export const AUDIT_PAGE_SIZE = 20;
/** A withdrawal on its way on chain (evm rail): its status is asked again this often while one is processing. */
export const WITHDRAWAL_POLL_INTERVAL_MS = 5_000;
export const PENDING_DEPOSITS_LIMIT = 20;
/** A wallet's activity loads 100 transactions a request... */
export const ACTIVITY_PAGE_SIZE = 100;
/** ...and by itself at most this many pages, to cover the chart's 30 days. */
export const ACTIVITY_AUTO_PAGES = 3;
/** The wallet list is loaded whole, up to this many pages of 100 (then the badge counts those wallets). */
const WALLET_PAGES_MAX = 3;

export function newQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      // Retries are the HTTP layer's (429 after Retry-After, transient failures by the SDK).
      queries: { retry: false, refetchOnWindowFocus: false, refetchOnReconnect: false },
      mutations: { retry: false },
    },
  });
}

/** The next poll's delay: the interval, or until the bucket refills when few requests are left in it. */
export function pollDelay(
  budget: BucketBudget | undefined,
  now: number,
  interval = POLL_INTERVAL_MS,
): number {
  if (budget === undefined || budget.remaining >= POLL_RESERVE) return interval;
  return Math.max(interval, budget.resetAt - now + 500);
}

export interface ResourceState<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload: () => void;
}

interface ResourceOptions {
  /** Poll this often (ms) while the tab is visible, or not at all. */
  refetchInterval?: number | false | (() => number | false);
  /** Load again (when stale) as the tab becomes visible again. */
  refetchOnWindowFocus?: boolean;
}

/** One server resource for a view: loaded when missing or older than staleTime; null key = nothing. */
export function useResource<T>(
  key: QueryKey | null,
  fetcher: () => Promise<T>,
  staleTime: number,
  options: ResourceOptions = {},
): ResourceState<T> {
  const enabled = key !== null;
  const interval = options.refetchInterval;
  const query = useQuery({
    queryKey: key ?? ['none'],
    queryFn: fetcher,
    staleTime,
    enabled,
    refetchInterval: typeof interval === 'function' ? () => interval() : (interval ?? false),
    refetchOnWindowFocus: options.refetchOnWindowFocus ?? false,
  });
  const { refetch } = query;
  const reload = useCallback(() => void refetch(), [refetch]);
  const error = query.error === null ? undefined : toApiError(query.error);
  return {
    data: query.data,
    error,
    loading: enabled && (query.isFetching || (query.data === undefined && error === undefined)),
    reload,
  };
}

export interface WalletList {
  items: AgentWallet[];
  total: number;
  /** Waiting approvals across every wallet (the server counts them all, whatever was loaded). */
  pendingApprovals?: number;
}

async function fetchAllAgentWallets(sdk: ManagementClient): Promise<WalletList> {
  const first = await sdk.agentWallets.list({ page: 1, limit: FULL_LIST_LIMIT });
  const items = [...first.items];
  for (let page = 2; items.length < first.total && page <= WALLET_PAGES_MAX; page += 1) {
    const next = await sdk.agentWallets.list({ page, limit: FULL_LIST_LIMIT });
    if (next.items.length === 0) break;
    items.push(...next.items);
  }
  return { items, total: first.total, pendingApprovals: first.pendingApprovals };
}

/**
 * Loads the wallet list and, comparing with what was cached, reloads only what the change affects and what is
 * on screen: a wallet's transactions when money moved, its waiting approvals when their count did.
 */
export async function loadAgentWallets(sdk: ManagementClient, qc: QueryClient): Promise<WalletList> {
  const list = await fetchAllAgentWallets(sdk);
  const before = qc.getQueryData<WalletList>(K.agentWallets);
  if (before !== undefined) invalidateChanged(qc, before.items, list.items);
  for (const wallet of list.items) {
    if (qc.getQueryData(K.agentWallet(wallet.id)) !== undefined)
      qc.setQueryData(K.agentWallet(wallet.id), wallet);
  }
  return list;
}

function invalidateChanged(qc: QueryClient, before: AgentWallet[], after: AgentWallet[]) {
  const previous = new Map(before.map((wallet) => [wallet.id, wallet]));
  for (const wallet of after) {
    const old = previous.get(wallet.id);
    if (old === undefined) continue;
    const moneyMoved = old.balance !== wallet.balance || old.heldBalance !== wallet.heldBalance;
    const pendingChanged = old.pendingApprovals !== wallet.pendingApprovals;
    if (moneyMoved || pendingChanged) void qc.invalidateQueries({ queryKey: K.activity(wallet.id) });
    if (wallet.pendingApprovals === 0) {
      updateData<TransactionPage<Transaction>>(qc, K.pending(wallet.id), (page) => ({
        ...page,
        transactions: [],
        total: 0,
      }));
    } else if (pendingChanged || old.heldBalance !== wallet.heldBalance) {
      void qc.invalidateQueries({ queryKey: K.pending(wallet.id) });
    }
    // An agent used a key: its "last used" moved (loaded again when next shown).
    if (moneyMoved || pendingChanged) markStale(qc, K.keys(wallet.id));
  }
}

/** The wallet list; `poll` makes this view the one that keeps it current (the header, on every screen). */
export function useAgentWallets(poll = false): ResourceState<WalletList> {
  const { sdk, client, enrolmentRequired } = useApp();
  const qc = useQueryClient();
  // Until a required second factor is enrolled every read is refused: nothing is asked (no refusal loop).
  const key = enrolmentRequired ? null : K.agentWallets;
  return useResource(key, () => loadAgentWallets(sdk, qc), STALE.agentWallets, {
    refetchInterval: poll ? () => pollDelay(client.budget('agent_wallets'), Date.now()) : false,
    refetchOnWindowFocus: poll,
  });
}

/** One agent wallet: from the list when it is there (no request), else loaded on its own. */
export function useAgentWallet(walletId: string): {
  wallet: AgentWallet | undefined;
  error: ApiError | undefined;
} {
  const { sdk } = useApp();
  const list = useAgentWallets();
  const fromList = list.data?.items.find((wallet) => wallet.id === walletId);
  const needOwn = list.data !== undefined && fromList === undefined;
  const own = useResource(
    needOwn ? K.agentWallet(walletId) : null,
    () => sdk.agentWallets.get(walletId),
    STALE.details,
  );
  return {
    wallet: fromList ?? own.data,
    error: fromList === undefined ? (own.error ?? list.error) : undefined,
  };
}

export function useMasterWallet(): ResourceState<MasterWallet> {
  const { sdk } = useApp();
  return useResource(K.master, () => sdk.wallet(), STALE.master);
}

export function pendingTotal(list: WalletList | undefined): number {
  if (list?.pendingApprovals !== undefined) return list.pendingApprovals;
  return list?.items.reduce((sum, wallet) => sum + wallet.pendingApprovals, 0) ?? 0;
}

export type ActivityData = InfiniteData<TransactionPage<Transaction>, number>;

/**
 * A wallet's transactions, newest first, 100 a request. Older pages load by themselves until the chart's days
 * are covered (at most ACTIVITY_AUTO_PAGES), and further on request (loadOlder).
 */
export function useActivity(walletId: string, coverSinceMs: number) {
  const { sdk } = useApp();
  const query = useInfiniteQuery({
    queryKey: K.activity(walletId),
    queryFn: ({ pageParam }) =>
      sdk.transactions.list(walletId, { page: pageParam, limit: ACTIVITY_PAGE_SIZE }),
    initialPageParam: 1,
    getNextPageParam: (last: TransactionPage<Transaction>) =>
      last.page * last.limit < last.total ? last.page + 1 : undefined,
    staleTime: STALE.transactions,
  });
  const pages = query.data?.pages ?? [];
  const oldest = pages.at(-1)?.transactions.at(-1)?.createdAt;
  const needsMore =
    query.hasNextPage &&
    !query.isFetching &&
    query.error === null &&
    pages.length < ACTIVITY_AUTO_PAGES &&
    oldest !== undefined &&
    Date.parse(oldest) >= coverSinceMs;
  const { fetchNextPage } = query;
  useEffect(() => {
    if (needsMore) void fetchNextPage();
  }, [needsMore, fetchNextPage]);
  return {
    transactions: pages.flatMap((page) => page.transactions),
    total: pages[0]?.total,
    loading: query.isFetching,
    error: query.error === null ? undefined : toApiError(query.error),
    hasOlder: query.hasNextPage,
    loadOlder: () => void fetchNextPage(),
    reload: () => void query.refetch(),
  };
}

// ---- Writing mutation answers back -------------------------------------------------------------------------

/**
 * Changes cached data in place (no request); data not cached stays missing. The answer keeps its age and its
 * staleness: a mutation's answer patches what was loaded, it does not make the rest of it fresh.
 */
export function updateData<T>(qc: QueryClient, key: QueryKey, change: (data: T) => T) {
  const state = qc.getQueryState<T>(key);
  if (state?.data === undefined) return;
  qc.setQueryData<T>(key, (data) => (data === undefined ? undefined : change(data)), {
    updatedAt: state.dataUpdatedAt,
  });
  if (state.isInvalidated) markStale(qc, key);
}

/** Marks answers stale without loading them: the next view that needs them loads them. */
export function markStale(qc: QueryClient, key: QueryKey) {
  void qc.invalidateQueries({ queryKey: key, refetchType: 'none' });
}

/** Writes a wallet a mutation answered with, merged over what is cached. */
export function applyWallet(qc: QueryClient, wallet: Partial<AgentWallet> & { id: string }) {
  const merge = (item: AgentWallet): AgentWallet => ({ ...item, ...definedFields(wallet) });
  updateData<WalletList>(qc, K.agentWallets, (list) => {
    const before = list.items.find((item) => item.id === wallet.id)?.pendingApprovals;
    // The server's total moves by this wallet's change, so the badge stays right until the next poll.
    const delta =
      before !== undefined && wallet.pendingApprovals !== undefined ? wallet.pendingApprovals - before : 0;
    return {
      ...list,
      items: list.items.map((item) => (item.id === wallet.id ? merge(item) : item)),
      ...(list.pendingApprovals === undefined ? {} : { pendingApprovals: list.pendingApprovals + delta }),
    };
  });
  updateData<AgentWallet>(qc, K.agentWallet(wallet.id), merge);
}

function definedFields<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}

export function addWallet(qc: QueryClient, wallet: AgentWallet) {
  updateData<WalletList>(qc, K.agentWallets, (list) => ({
    ...list,
    items: [wallet, ...list.items.filter((item) => item.id !== wallet.id)],
    total: list.total + 1,
  }));
}

export function setMasterBalance(qc: QueryClient, balance: string) {
  updateData<MasterWallet>(qc, K.master, (master) => ({ ...master, balance }));
}

/** A new transaction goes on top of the wallet's newest page. */
export function addTransaction(qc: QueryClient, tx: Transaction) {
  updateData<ActivityData>(qc, K.activity(tx.walletId), (data) => ({
    ...data,
    pages: data.pages.map((page, index) =>
      index === 0
        ? {
            ...page,
            transactions: [tx, ...page.transactions.filter((t) => t.id !== tx.id)],
            total: page.total + 1,
          }
        : page,
    ),
  }));
}

export function applyMovement(qc: QueryClient, movement: Movement) {
  applyWallet(qc, movement.wallet);
  setMasterBalance(qc, movement.masterBalance);
  addTransaction(qc, movement.transaction);
  markStale(qc, K.depositsAll);
}

/**
 * An approved or rejected payment: replaced wherever it is listed, gone from the pending list — unless it still
 * waits for more approvals (require_approvals), then it stays there with its approvals brought up to date.
 */
export function applyDecision(qc: QueryClient, tx: Transaction) {
  const listed = qc
    .getQueryData<ActivityData>(K.activity(tx.walletId))
    ?.pages.some((page) => page.transactions.some((t) => t.id === tx.id));
  // A payment asked for since the activity was loaded: the activity loads again (now if on screen).
  if (listed === false) void qc.invalidateQueries({ queryKey: K.activity(tx.walletId) });
  updateData<ActivityData>(qc, K.activity(tx.walletId), (data) => ({
    ...data,
    pages: data.pages.map((page) => ({
      ...page,
      transactions: page.transactions.map((t) => (t.id === tx.id ? tx : t)),
    })),
  }));
  updateData<TransactionPage<Transaction>>(qc, K.pending(tx.walletId), (page) => {
    // An approval that was not the last one needed (require_approvals): it still waits, with one more approval.
    if (tx.status === 'pending') {
      return { ...page, transactions: page.transactions.map((t) => (t.id === tx.id ? tx : t)) };
    }
    const transactions = page.transactions.filter((t) => t.id !== tx.id);
    return {
      ...page,
      transactions,
      total: Math.max(0, page.total - (page.transactions.length - transactions.length)),
    };
  });
  markStale(qc, K.tx(tx.walletId, tx.id));
}

export function addDeposit(qc: QueryClient, deposit: Deposit) {
  updateData<Page<Deposit>>(qc, K.deposits(1), (page) => ({
    ...page,
    items: [deposit, ...page.items].slice(0, page.limit),
    total: page.total + 1,
  }));
  void qc.invalidateQueries({
    queryKey: K.depositsAll,
    refetchType: 'none',
    predicate: (query) => query.queryKey[1] !== 1,
  });
}

/** Reloads one wallet (balances and caps after an approval or a policy change): one request. */
export async function refreshWallet(sdk: ManagementClient, qc: QueryClient, walletId: string) {
  try {
    applyWallet(qc, await sdk.agentWallets.get(walletId));
  } catch {
    // The poll brings it up to date soon enough.
  }
}

// ---- Actions -----------------------------------------------------------------------------------------------

/** Runs a mutation with busy and error state. Resolves to the error, or null on success. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const run = useCallback(async (action: () => Promise<void>): Promise<ApiError | null> => {
    setBusy(true);
    setError(null);
    try {
      await action();
      return null;
    } catch (caught) {
      const apiError = toApiError(caught);
      if (mounted.current) setError(apiError);
      return apiError;
    } finally {
      if (mounted.current) setBusy(false);
    }
  }, []);
  return { busy, error, setError, run };
}

/** Reads cached data without ever loading it (e.g. the master balance as a hint on another page). */
export function usePeek<T>(key: QueryKey): T | undefined {
  const qc = useQueryClient();
  const subscribe = useCallback((listener: () => void) => qc.getQueryCache().subscribe(listener), [qc]);
  return useSyncExternalStore(subscribe, () => qc.getQueryData<T>(key));
}

/**
 * Several cached answers at once, without loading any (the overview's latest payments, read from the activity its
 * wallet cards load). The same array comes back while none of them changed: useSyncExternalStore needs that.
 */
export function usePeekAll<T>(keys: readonly QueryKey[]): (T | undefined)[] {
  const qc = useQueryClient();
  const last = useRef<(T | undefined)[]>([]);
  const subscribe = useCallback((listener: () => void) => qc.getQueryCache().subscribe(listener), [qc]);
  const snapshot = () => {
    const next = keys.map((key) => qc.getQueryData<T>(key));
    const previous = last.current;
    if (previous.length === next.length && next.every((data, index) => data === previous[index])) {
      return previous;
    }
    last.current = next;
    return next;
  };
  return useSyncExternalStore(subscribe, snapshot);
}

// Cache keys, loaders and the hooks views use; and how a mutation's answer is written back into the cache.
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { Api } from './api/endpoints.ts';
import { FULL_LIST_LIMIT } from './api/endpoints.ts';
import { ApiError } from './api/errors.ts';
import type {
  AgentWallet,
  Deposit,
  MasterWallet,
  Movement,
  Page,
  PendingDeposit,
  Transaction,
  TxPage,
} from './api/types.ts';
import { useApp } from './app-context.ts';
import type { Cache, Entry } from './cache.ts';

export const K = {
  master: 'wallet',
  deposits: (page: number) => `deposits:${page}`,
  depositsPrefix: 'deposits:',
  pendingDeposits: 'pendingDeposits',
  agentWallets: 'agentWallets',
  agentWallet: (walletId: string) => `agentWallet:${walletId}`,
  keys: (walletId: string) => `keys:${walletId}`,
  policies: (walletId: string) => `policies:${walletId}`,
  policyChanges: (walletId: string, page: number) => `policyChanges:${walletId}:${page}`,
  policyChangesPrefix: (walletId: string) => `policyChanges:${walletId}:`,
  webhooks: 'webhooks',
  deliveries: (endpointId: string, page: number) => `deliveries:${endpointId}:${page}`,
  deliveriesPrefix: (endpointId: string) => `deliveries:${endpointId}:`,
  txs: (walletId: string, status: string, page: number) => `txs:${walletId}:${status}:${page}`,
  txsPrefix: (walletId: string) => `txs:${walletId}:`,
  tx: (walletId: string, txId: string) => `tx:${walletId}:${txId}`,
  pending: (walletId: string) => `pending:${walletId}`,
};

/** How long an answer is reused before a view that needs it loads it again. */
export const MAX_AGE = {
  master: 30_000,
  agentWallets: 15_000,
  details: 60_000,
  transactions: 30_000,
  pending: 30_000,
  txDetail: 60_000,
  pendingDeposits: 5_000,
  policyChanges: 30_000,
  webhooks: 60_000,
  deliveries: 10_000,
};

export const DEPOSITS_PAGE_SIZE = 10;
export const TXS_PAGE_SIZE = 20;
export const POLICY_CHANGES_PAGE_SIZE = 10;
export const DELIVERIES_PAGE_SIZE = 20;
/** Deposits on their way are shown newest first, up to this many. */
export const PENDING_DEPOSITS_LIMIT = 20;
/** The wallet list is loaded whole, up to this many pages of 100 (then the badge counts those wallets). */
const WALLET_PAGES_MAX = 3;

export interface WalletList {
  items: AgentWallet[];
  total: number;
  /** Waiting approvals across every wallet (the server counts them all, whatever was loaded). */
  pendingApprovals?: number;
}

export interface ResourceState<T> extends Entry<T> {
  reload: () => void;
}

const NO_ENTRY: Entry<never> = Object.freeze({
  data: undefined,
  error: undefined,
  loading: false,
  fetchedAt: 0,
});

/** Subscribes a view to one cache entry and loads it when missing or older than maxAgeMs. null = nothing. */
export function useResource<T>(
  key: string | null,
  fetcher: () => Promise<T>,
  maxAgeMs: number,
): ResourceState<T> {
  const { cache } = useApp();
  const subscribe = useCallback(
    (listener: () => void) => (key === null ? () => {} : cache.subscribe(key, listener)),
    [cache, key],
  );
  const entry = useSyncExternalStore(subscribe, () => (key === null ? NO_ENTRY : cache.peek<T>(key)));
  const fetcherRef = useRef(fetcher);
  fetcherRef.current = fetcher;
  const stale = entry.fetchedAt === 0;
  useEffect(() => {
    if (key === null) return;
    const load = () => fetcherRef.current();
    cache.register(key, load);
    // A stale entry on screen (marked by a mutation or the poller) loads again at once.
    void cache.ensure(key, load, stale ? 0 : maxAgeMs);
  }, [cache, key, maxAgeMs, stale]);
  const reload = useCallback(() => {
    if (key !== null) void cache.load(key, () => fetcherRef.current());
  }, [cache, key]);
  return {
    ...entry,
    loading: entry.loading || (key !== null && entry.data === undefined && !entry.error),
    reload,
  };
}

async function fetchAllAgentWallets(api: Api): Promise<WalletList> {
  const first = await api.agentWallets(1, FULL_LIST_LIMIT);
  const items = [...first.items];
  for (let page = 2; items.length < first.total && page <= WALLET_PAGES_MAX; page += 1) {
    const next = await api.agentWallets(page, FULL_LIST_LIMIT);
    if (next.items.length === 0) break;
    items.push(...next.items);
  }
  return { items, total: first.total, pendingApprovals: first.pendingApprovals };
}

/**
 * Loads the wallet list and, comparing with what was cached, reloads only the per-wallet views that the
 * change affects and that are on screen: transactions when money moved, pending approvals when their count did.
 */
export function loadAgentWallets(api: Api, cache: Cache): () => Promise<WalletList> {
  return async () => {
    const list = await fetchAllAgentWallets(api);
    const before = cache.peek<WalletList>(K.agentWallets).data;
    if (before !== undefined) invalidateChanged(cache, before.items, list.items);
    for (const wallet of list.items) cache.update<AgentWallet>(K.agentWallet(wallet.id), () => wallet);
    return list;
  };
}

function invalidateChanged(cache: Cache, before: AgentWallet[], after: AgentWallet[]) {
  const previous = new Map(before.map((wallet) => [wallet.id, wallet]));
  for (const wallet of after) {
    const old = previous.get(wallet.id);
    if (old === undefined) continue;
    const moneyMoved = old.balance !== wallet.balance || old.heldBalance !== wallet.heldBalance;
    const pendingChanged = old.pendingApprovals !== wallet.pendingApprovals;
    if (moneyMoved || pendingChanged) cache.invalidate(K.txsPrefix(wallet.id));
    if (wallet.pendingApprovals === 0) {
      cache.update<TxPage>(K.pending(wallet.id), (page) => ({ ...page, transactions: [], total: 0 }));
    } else if (pendingChanged || old.heldBalance !== wallet.heldBalance) {
      cache.invalidate(K.pending(wallet.id));
    }
    // An agent used a key: its "last used" moved.
    if (moneyMoved || pendingChanged) cache.markStale(K.keys(wallet.id));
  }
}

export function useAgentWallets(): ResourceState<WalletList> {
  const { api, cache } = useApp();
  return useResource(K.agentWallets, loadAgentWallets(api, cache), MAX_AGE.agentWallets);
}

/** One agent wallet: from the list when it is there (no request), else loaded on its own. */
export function useAgentWallet(walletId: string): {
  wallet: AgentWallet | undefined;
  error: ApiError | undefined;
} {
  const { api } = useApp();
  const list = useAgentWallets();
  const fromList = list.data?.items.find((wallet) => wallet.id === walletId);
  const needOwn = list.data !== undefined && fromList === undefined;
  const own = useResource(
    needOwn ? K.agentWallet(walletId) : null,
    () => api.agentWallet(walletId),
    MAX_AGE.details,
  );
  return {
    wallet: fromList ?? own.data,
    error: fromList === undefined ? (own.error ?? list.error) : undefined,
  };
}

export function useMasterWallet(): ResourceState<MasterWallet> {
  const { api } = useApp();
  return useResource(K.master, () => api.masterWallet(), MAX_AGE.master);
}

/**
 * Loads the USDC transfers on their way in (evm rail). One that left the list since the last load was credited
 * (or dropped by a re-org): the balances and deposit lists that would show it are reloaded, if on screen.
 */
export function loadPendingDeposits(api: Api, cache: Cache): () => Promise<Page<PendingDeposit>> {
  return async () => {
    const page = await api.pendingDeposits(1, PENDING_DEPOSITS_LIMIT);
    const before = cache.peek<Page<PendingDeposit>>(K.pendingDeposits).data;
    if (before !== undefined) refreshArrived(cache, before.items, page.items);
    return page;
  };
}

const depositId = (deposit: PendingDeposit) => `${deposit.txHash}:${deposit.logIndex}`;

function refreshArrived(cache: Cache, before: PendingDeposit[], after: PendingDeposit[]) {
  const still = new Set(after.map(depositId));
  const gone = before.filter((deposit) => !still.has(depositId(deposit)));
  if (gone.length === 0) return;
  const masterId = cache.peek<MasterWallet>(K.master).data?.id;
  if (masterId === undefined || gone.some((deposit) => deposit.walletId === masterId)) {
    cache.invalidate(K.master);
    cache.invalidate(K.depositsPrefix);
  }
  if (gone.some((deposit) => deposit.walletId !== masterId)) cache.invalidate(K.agentWallets);
}

export function usePendingDeposits(): ResourceState<Page<PendingDeposit>> {
  const { api, cache } = useApp();
  return useResource(K.pendingDeposits, loadPendingDeposits(api, cache), MAX_AGE.pendingDeposits);
}

export function pendingTotal(list: WalletList | undefined): number {
  if (list?.pendingApprovals !== undefined) return list.pendingApprovals;
  return list?.items.reduce((sum, wallet) => sum + wallet.pendingApprovals, 0) ?? 0;
}

// ---- Writing mutation answers back -------------------------------------------------------------------------

/** Writes a wallet a mutation answered with, merged over what is cached. */
export function applyWallet(cache: Cache, wallet: Partial<AgentWallet> & { id: string }) {
  const merge = (item: AgentWallet): AgentWallet => ({ ...item, ...definedFields(wallet) });
  cache.update<WalletList>(K.agentWallets, (list) => {
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
  cache.update<AgentWallet>(K.agentWallet(wallet.id), merge);
}

function definedFields<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}

export function addWallet(cache: Cache, wallet: AgentWallet) {
  cache.update<WalletList>(K.agentWallets, (list) => ({
    items: [wallet, ...list.items.filter((item) => item.id !== wallet.id)],
    total: list.total + 1,
  }));
}

export function setMasterBalance(cache: Cache, balance: string) {
  cache.update<MasterWallet>(K.master, (master) => ({ ...master, balance }));
}

/** A new transaction goes on top of the unfiltered first page; other pages are stale. */
export function addTransaction(cache: Cache, tx: Transaction) {
  const firstPage = K.txs(tx.walletId, '', 1);
  cache.update<TxPage>(firstPage, (page) => ({
    ...page,
    transactions: [tx, ...page.transactions.filter((t) => t.id !== tx.id)].slice(0, page.limit),
    total: page.total + 1,
  }));
  cache.markStale(K.txsPrefix(tx.walletId), firstPage);
}

export function applyMovement(cache: Cache, movement: Movement) {
  applyWallet(cache, movement.wallet);
  setMasterBalance(cache, movement.masterBalance);
  addTransaction(cache, movement.transaction);
  cache.markStale(K.depositsPrefix);
}

/** An approved or rejected payment: replaced wherever it is listed, gone from the pending list. */
export function applyDecision(cache: Cache, tx: Transaction) {
  cache.updateWhere<TxPage>(K.txsPrefix(tx.walletId), (page) => ({
    ...page,
    transactions: page.transactions.map((t) => (t.id === tx.id ? tx : t)),
  }));
  cache.update<TxPage>(K.pending(tx.walletId), (page) => {
    const transactions = page.transactions.filter((t) => t.id !== tx.id);
    return {
      ...page,
      transactions,
      total: Math.max(0, page.total - (page.transactions.length - transactions.length)),
    };
  });
  cache.markStale(K.tx(tx.walletId, tx.id));
}

export function addDeposit(cache: Cache, deposit: Deposit) {
  const firstPage = K.deposits(1);
  cache.update<Page<Deposit>>(firstPage, (page) => ({
    ...page,
    items: [deposit, ...page.items].slice(0, page.limit),
    total: page.total + 1,
  }));
  cache.markStale(K.depositsPrefix, firstPage);
}

/** Reloads one wallet (balances and caps after an approval or a policy change): one request. */
export async function refreshWallet(api: Api, cache: Cache, walletId: string) {
  try {
    applyWallet(cache, await api.agentWallet(walletId));
  } catch {
    // The poller brings it up to date soon enough.
  }
}

// ---- Actions -----------------------------------------------------------------------------------------------

export function toApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError('INTERNAL_ERROR', 0, '');
}

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

/** Reads a cache entry without ever loading it (e.g. the master balance as a hint on another page). */
export function usePeek<T>(key: string): T | undefined {
  const { cache } = useApp();
  const subscribe = useCallback((listener: () => void) => cache.subscribe(key, listener), [cache, key]);
  return useSyncExternalStore(subscribe, () => cache.peek<T>(key)).data;
}

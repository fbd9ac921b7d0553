// Client-side routes on the History API (the server answers index.html for every non-API GET).
import { useSyncExternalStore } from 'react';

export type Route =
  | { name: 'master' }
  | { name: 'agents' }
  | { name: 'agent'; walletId: string; tab: WalletTab }
  | { name: 'approvals' }
  | { name: 'webhooks' }
  | { name: 'login' }
  | { name: 'signup' }
  | { name: 'notFound' };

export const WALLET_TABS = ['transactions', 'approvals', 'keys', 'policies'] as const;
export type WalletTab = (typeof WALLET_TABS)[number];

const listeners = new Set<() => void>();
let navigations = 0;

function snapshot() {
  return location.pathname + location.search;
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

export function navigate(to: string, options: { replace?: boolean } = {}) {
  if (to === snapshot()) return;
  navigations += 1;
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  for (const listener of listeners) listener();
}

/** True once the person has moved between views in this page load (then headings take focus). */
export function hasNavigated(): boolean {
  return navigations > 0;
}

export function parseRoute(pathAndSearch: string): Route {
  const url = new URL(pathAndSearch, 'http://local');
  const path = url.pathname.replace(/\/+$/, '') || '/';
  if (path === '/') return { name: 'master' };
  if (path === '/agents') return { name: 'agents' };
  if (path === '/approvals') return { name: 'approvals' };
  if (path === '/webhooks') return { name: 'webhooks' };
  if (path === '/login') return { name: 'login' };
  if (path === '/signup') return { name: 'signup' };
  const agent = /^\/agents\/([^/]+)$/.exec(path);
  if (agent?.[1] !== undefined) {
    const tabParam = url.searchParams.get('tab');
    const tab = (WALLET_TABS as readonly string[]).includes(tabParam ?? '')
      ? (tabParam as WalletTab)
      : 'transactions';
    return { name: 'agent', walletId: decodeURIComponent(agent[1]), tab };
  }
  return { name: 'notFound' };
}

export function agentPath(walletId: string, tab?: WalletTab) {
  const base = `/agents/${encodeURIComponent(walletId)}`;
  return tab === undefined || tab === 'transactions' ? base : `${base}?tab=${tab}`;
}

export function useLocation(): string {
  return useSyncExternalStore(subscribe, snapshot, () => '/');
}

export function useRoute(): Route {
  return parseRoute(useLocation());
}

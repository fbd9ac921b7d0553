// Routes on wouter (History API; the server answers index.html for every non-API GET). What wouter does not know
// and the dashboard needs: whether the person has moved between views in this page load (then each view's
// heading takes focus), the wallet page's tabs, and the paths built from ids.
import { navigate as browserNavigate } from 'wouter/use-browser-location';

export const WALLET_TABS = ['activity', 'approvals', 'keys', 'policies', 'connect', 'settings'] as const;
export type WalletTab = (typeof WALLET_TABS)[number];

let navigations = 0;
if (typeof window !== 'undefined') window.addEventListener('popstate', () => noteNavigation());

/** Counts an in-app move (links call it; back and forward count by themselves). */
export function noteNavigation() {
  navigations += 1;
}

export function navigate(to: string, options: { replace?: boolean } = {}) {
  if (to === location.pathname + location.search) return;
  noteNavigation();
  browserNavigate(to, options);
}

/** True once the person has moved between views in this page load (then headings take focus). */
export function hasNavigated(): boolean {
  return navigations > 0;
}

/** The wallet page's tab from the query string (`?tab=keys`); the activity by default. */
export function parseTab(search: string): WalletTab {
  const tab = new URLSearchParams(search).get('tab') ?? '';
  return (WALLET_TABS as readonly string[]).includes(tab) ? (tab as WalletTab) : 'activity';
}

export function agentPath(walletId: string, tab?: WalletTab) {
  const base = `/agents/${encodeURIComponent(walletId)}`;
  return tab === undefined || tab === 'activity' ? base : `${base}?tab=${tab}`;
}

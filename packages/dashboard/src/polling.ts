// Keeps the approvals badge and the open views current without reloads: ONE request, GET /agent-wallets
// (which carries every wallet's pendingApprovals), every 15 s while the tab is visible. Never per wallet.
import { useEffect } from 'react';
import { useApp } from './app-context.ts';
import { K, loadAgentWallets } from './data.ts';

export const POLL_INTERVAL_MS = 15_000;
/** Skip a poll when the agent-wallets bucket has fewer requests left than this: they are the person's. */
export const POLL_RESERVE = 6;

export function usePolling(intervalMs = POLL_INTERVAL_MS) {
  const { api, cache } = useApp();
  useEffect(() => {
    let last = Date.now();
    const poll = () => {
      if (document.visibilityState !== 'visible') return;
      const budget = api.client.budget('agent_wallets');
      if (budget !== undefined && budget.remaining < POLL_RESERVE) return;
      last = Date.now();
      void cache.load(K.agentWallets, loadAgentWallets(api, cache));
    };
    const timer = setInterval(poll, intervalMs);
    // Back to the tab after a while: catch up at once rather than at the next tick.
    const onVisibility = () => {
      if (document.visibilityState === 'visible' && Date.now() - last >= intervalMs) poll();
    };
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [api, cache, intervalMs]);
}

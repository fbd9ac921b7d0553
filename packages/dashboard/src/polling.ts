// Keeps the approvals badge and the open views current without reloads: ONE request, GET /agent-wallets
// (which carries every wallet's pendingApprovals), every 15 s while the tab is visible. Never per wallet.
// Views with something on its way (USDC deposits on the evm rail) poll their own one resource the same way.
import { useEffect, useRef } from 'react';
import { useApp } from './app-context.ts';
import { K, loadAgentWallets } from './data.ts';

export const POLL_INTERVAL_MS = 15_000;
/** Deposits on their way (evm rail): their confirmation count moves with every block. */
export const DEPOSIT_POLL_INTERVAL_MS = 5_000;
/** Skip a poll when the bucket has fewer requests left than this: they are the person's. */
export const POLL_RESERVE = 6;

/**
 * Calls `poll` every `intervalMs` while the tab is visible and the rate-limit `bucket` it spends has at least
 * POLL_RESERVE requests left; back on the tab after a while, at once rather than at the next tick.
 */
export function useVisiblePolling(poll: () => void, intervalMs: number, bucket: string) {
  const { api } = useApp();
  const pollRef = useRef(poll);
  pollRef.current = poll;
  useEffect(() => {
    let last = Date.now();
    const tick = () => {
      if (document.visibilityState !== 'visible') return;
      const budget = api.client.budget(bucket);
      if (budget !== undefined && budget.remaining < POLL_RESERVE) return;
      last = Date.now();
      pollRef.current();
    };
    const timer = setInterval(tick, intervalMs);
    const onVisibility = () => {
      if (document.visibilityState === 'visible' && Date.now() - last >= intervalMs) tick();
    };
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [api, intervalMs, bucket]);
}

export function usePolling(intervalMs = POLL_INTERVAL_MS) {
  const { api, cache } = useApp();
  useVisiblePolling(
    () => void cache.load(K.agentWallets, loadAgentWallets(api, cache)),
    intervalMs,
    'agent_wallets',
  );
}

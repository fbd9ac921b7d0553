import { useSyncExternalStore } from 'react';
import type { ApiClient } from '../api/client.ts';
import { rateLimitText } from '../api/errors.ts';
import { useCountdown } from './useCountdown.ts';

/** Shown while a refused request waits out Retry-After before its automatic retry. */
export function RateLimitBanner({ client }: { client: ApiClient }) {
  const until = useSyncExternalStore(client.subscribeWaits, client.getWaitUntil);
  const seconds = useCountdown(until);
  return (
    <div className="rate-limit-region" role="status" aria-live="polite">
      {until !== null && (
        <p className="rate-limit-banner" data-testid="rate-limit-banner">
          {rateLimitText(Math.max(1, seconds), true)}
        </p>
      )}
    </div>
  );
}

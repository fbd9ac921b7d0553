import { useState } from 'react';
import type { ApiError } from '../api/errors.ts';
import { rateLimitText } from '../api/errors.ts';
import { useCountdown } from './useCountdown.ts';

/** A failure in words, next to what caused it. A 429 counts down until the person may try again. */
export function ErrorMessage({ error, id }: { error: ApiError | null | undefined; id?: string }) {
  if (error === null || error === undefined) return null;
  if (error.code === 'RATE_LIMITED') return <RateLimitedMessage error={error} id={id} />;
  return (
    <div className="error-message" role="alert" id={id}>
      <p>{error.message}</p>
      {error.violations !== undefined && error.violations.length > 0 && (
        <ul className="violations">
          {error.violations.map((violation) => (
            <li key={violation.policyId}>{violation.reason}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

function RateLimitedMessage({ error, id }: { error: ApiError; id: string | undefined }) {
  const [until] = useState(() => Date.now() + (error.retryAfter ?? 1) * 1000);
  const seconds = useCountdown(until);
  return (
    <div className="error-message" role="alert" id={id}>
      <p>{seconds > 0 ? rateLimitText(seconds, false) : 'You can try again now.'}</p>
    </div>
  );
}

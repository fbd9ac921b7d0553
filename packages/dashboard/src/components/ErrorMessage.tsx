import { useState } from 'react';
import type { ApiError } from '../api/errors.ts';
import { rateLimitText } from '../api/errors.ts';
import { deniedBy, describeViolation } from '../views/violations.ts';
import { useCountdown } from './useCountdown.ts';

/** A failure in words, next to what caused it. A 429 counts down until the person may try again. */
export function ErrorMessage({ error, id }: { error: ApiError | null | undefined; id?: string }) {
  if (error === null || error === undefined) return null;
  if (error.code === 'RATE_LIMITED') return <RateLimitedMessage error={error} id={id} />;
  const violations = error.violations ?? [];
  // A denial lists each violated policy in the dashboard's words; the server's joined reasons are not repeated.
  const denied = error.code === 'POLICY_DENIED' && violations.length > 0;
  return (
    <div className="error-message" role="alert" id={id}>
      <p>{denied ? `${deniedBy(violations.length)}:` : error.message}</p>
      {violations.length > 0 && (
        <ul className="violations">
          {violations.map((violation) => (
            <li key={violation.policyId}>{describeViolation(violation)}</li>
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

import { useEffect, useMemo, useState } from 'react';
import {
  type Estimator,
  loadEstimator,
  PASSWORD_SCORE_MIN,
  type PasswordStrength,
  strengthWords,
} from '../passwordStrength.ts';

/**
 * The estimate of a new password as it is typed: null until something is typed and the estimator has loaded
 * (it loads on the first character, not with the page).
 */
export function usePasswordStrength(password: string): PasswordStrength | null {
  const [estimator, setEstimator] = useState<Estimator | null>(null);
  const typed = password !== '';
  useEffect(() => {
    if (!typed || estimator !== null) return;
    let live = true;
    // A failed load leaves the field without a meter; the server still judges the password.
    loadEstimator().then(
      (loaded) => live && setEstimator(() => loaded),
      () => {},
    );
    return () => {
      live = false;
    };
  }, [typed, estimator]);
  return useMemo(
    () => (estimator === null || password === '' ? null : estimator(password)),
    [estimator, password],
  );
}

/** The strength of a new password: a meter (red below the least score the server takes) and its words. */
export function PasswordMeter({ strength }: { strength: PasswordStrength | null }) {
  if (strength === null) return null;
  const { label, advice } = strengthWords(strength);
  return (
    <div className="password-strength" data-testid="password-strength">
      <meter
        className="meter small"
        min={0}
        max={4}
        low={PASSWORD_SCORE_MIN - 0.5}
        high={PASSWORD_SCORE_MIN}
        optimum={4}
        value={strength.score}
        aria-label="How hard it is to guess"
        aria-valuetext={label}
      >
        {label}
      </meter>
      <p className="hint" aria-live="polite">
        {label}
        {advice === null ? '.' : `: ${advice}`}
      </p>
    </div>
  );
}

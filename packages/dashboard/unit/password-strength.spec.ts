// The dashboard's password meter judges as the server does (packages/server/src/domain/identity/passwords.test.ts holds
// the same cases): the same estimator, dictionaries, limits and least score.
import { describe, expect, it } from 'vitest';
import {
  loadEstimator,
  PASSWORD_SCORE_MIN,
  strengthWords,
  weakPasswordError,
} from '../src/passwordStrength.ts';

describe('the password strength estimate', () => {
  it('refuses what the server refuses, with the estimator’s advice', async () => {
    const estimate = await loadEstimator();
    for (const [password, warning] of [
      ['aaaaaaaaaaaa', /Repeated characters/],
      ['123456789012', /commonly used password/],
      ['abcdefghijkl', /Common character sequences/],
      [' qwertyuiop ', /password/],
      ['P@ssw0rd123', /similar to a commonly used password/],
    ] as const) {
      const strength = estimate(password);
      expect(strength.score, password).toBeLessThan(PASSWORD_SCORE_MIN);
      expect(weakPasswordError(strength)).toMatch(/^Too easy to guess\. /);
      expect(weakPasswordError(strength)).toMatch(warning);
    }
  });

  it('takes what the server takes, at the same edge: 8 random characters score 2, 9 score 3', async () => {
    const estimate = await loadEstimator();
    expect(estimate('Zq7!vR2#').score).toBe(2);
    expect(estimate('Zq7!vR2#k').score).toBe(3);
    for (const password of ['correct horse battery staple', 'a long enough password', 'a long password']) {
      expect(weakPasswordError(estimate(password)), password).toBeNull();
    }
  });

  it('reads the first 64 characters, as the server does', async () => {
    const estimate = await loadEstimator();
    expect(estimate(`${'a'.repeat(64)}q7!vR2#Zk9$mW`).score).toBeLessThan(PASSWORD_SCORE_MIN);
    expect(estimate(`${'a'.repeat(51)}q7!vR2#Zk9$mW`).score).toBeGreaterThanOrEqual(PASSWORD_SCORE_MIN);
  });

  it('loads once', async () => {
    expect(await loadEstimator()).toBe(await loadEstimator());
  });

  it('words the meter: a verdict for each score, advice only below the least score', () => {
    const at = (score: number, warning: string | null = null, suggestions: string[] = []) =>
      strengthWords({ score, warning, suggestions });
    expect(at(0, 'Dates are easy to guess.')).toEqual({
      label: 'Very easy to guess',
      advice: 'Dates are easy to guess.',
    });
    expect(at(1, null, ['Add more words that are less common.'])).toEqual({
      label: 'Easy to guess',
      advice: 'Add more words that are less common.',
    });
    expect(at(2)).toEqual({ label: 'Still too easy to guess', advice: null });
    expect(at(3, null, ['Add more words that are less common.'])).toEqual({
      label: 'Hard to guess',
      advice: null,
    });
    expect(at(4)).toEqual({ label: 'Very hard to guess', advice: null });
    expect(weakPasswordError(null)).toBeNull();
    expect(weakPasswordError({ score: 3, warning: null, suggestions: [] })).toBeNull();
    expect(weakPasswordError({ score: 2, warning: null, suggestions: [] })).toBe('Too easy to guess.');
  });
});

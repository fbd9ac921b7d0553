// Alerts in words and the add form's checks.
import { describe, expect, it } from 'vitest';
import { alertThreshold, alertTypeWords, newAlert, percentError } from '../src/views/alertWords.ts';

describe('alerts in words', () => {
  it('names the type and the threshold', () => {
    expect(alertTypeWords('balance_below')).toBe('Balance below');
    expect(alertTypeWords('cap_used')).toBe('Cap used');
    expect(alertTypeWords('something_new')).toBe('something_new');
    expect(alertThreshold({ type: 'balance_below', params: { amount: '1250.5' } })).toBe(
      'Below 1,250.50 USDC',
    );
    expect(alertThreshold({ type: 'cap_used', params: { percent: 80 } })).toBe('At 80 % of any spending cap');
    expect(alertThreshold({ type: 'cap_used', params: { amount: '1' } })).toBe('—');
  });

  it('takes a whole percentage from 1 to 100', () => {
    expect(percentError('80')).toBeNull();
    expect(percentError(' 100 ')).toBeNull();
    expect(percentError('1')).toBeNull();
    expect(percentError('')).toBe('Enter a percentage.');
    expect(percentError('0')).toBe('Enter a percentage from 1 to 100.');
    expect(percentError('101')).toBe('Enter a percentage from 1 to 100.');
    expect(percentError('80.5')).toBe('Enter a whole number, e.g. 80.');
    expect(percentError('-5')).toBe('Enter a whole number, e.g. 80.');
  });
});

describe('a new alert from the form', () => {
  it('watches the master wallet without a walletId, an agent wallet with its id', () => {
    expect(newAlert('balance_below', ' 50 ', null)).toEqual({
      alert: { type: 'balance_below', params: { amount: '50' } },
      error: null,
    });
    expect(newAlert('balance_below', '12.5', 'wal_a')).toEqual({
      alert: { type: 'balance_below', walletId: 'wal_a', params: { amount: '12.5' } },
      error: null,
    });
    expect(newAlert('cap_used', '75', 'wal_a')).toEqual({
      alert: { type: 'cap_used', walletId: 'wal_a', params: { percent: 75 } },
      error: null,
    });
  });

  it('says what is wrong instead', () => {
    expect(newAlert('balance_below', '', 'wal_a')).toEqual({ alert: null, error: 'Enter an amount.' });
    expect(newAlert('balance_below', '1,000', null).error).toMatch(/dot for decimals/);
    expect(newAlert('cap_used', '0', 'wal_a').error).toBe('Enter a percentage from 1 to 100.');
    expect(newAlert('cap_used', '50', null).error).toBe('A cap alert watches an agent wallet.');
  });
});

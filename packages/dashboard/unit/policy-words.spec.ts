import type { Policy, PolicyChange, PolicyViolation as Violation } from '@agent-wallet/sdk';
import { describe, expect, it } from 'vitest';
import { POLICY_TYPES } from '../src/api/wire.ts';
import { describePolicyChange } from '../src/views/policyHistory.ts';
import {
  describeDays,
  describePolicyParams,
  POLICY_INFO,
  POLICY_TYPE_ORDER,
} from '../src/views/policyInfo.ts';
import {
  describeAllowedHours,
  describeLocalTime,
  describeViolation,
  isPolicyRejection,
} from '../src/views/violations.ts';

const ADDRESS = '0xabcdef0123456789abcdef0123456789abcdef12';

describe('policies in words', () => {
  it('lists every policy type once in the type chooser, each with a title', () => {
    expect([...POLICY_TYPE_ORDER].sort()).toEqual(Object.keys(POLICY_INFO).sort());
    expect([...POLICY_TYPES].sort()).toEqual(Object.keys(POLICY_INFO).sort());
  });

  it('names and explains the merchant lists, which judge paid requests only', () => {
    expect(POLICY_INFO.merchant_allowlist).toEqual({
      title: 'Allowed sellers',
      description: expect.stringMatching(/^Deny paid API requests \(x402 and MPP\) .* not on this list;/),
      kind: 'hosts',
    });
    expect(POLICY_INFO.merchant_blocklist).toMatchObject({ title: 'Blocked sellers', kind: 'hosts' });
    expect(POLICY_INFO.merchant_blocklist.description).toMatch(/other payments are not affected\.$/);
    // Beside the address lists in the type chooser.
    const order = POLICY_TYPE_ORDER.join(' ');
    expect(order).toContain('address_blocklist merchant_allowlist merchant_blocklist');
  });

  it('describes every type', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['spend_cap_per_tx', { limit: '10.000000' }, 'At most 10.00 USDC per payment'],
      ['spend_cap_daily', { limit: '1234.5' }, 'At most 1,234.50 USDC in any 24 hours'],
      ['spend_cap_total', { limit: '500.000000' }, 'At most 500.00 USDC in total'],
      ['require_approval_above', { amount: '25.000000' }, 'Payments above 25.00 USDC need your approval'],
      ['address_allowlist', { addresses: [ADDRESS] }, 'Only to 1 allowed address'],
      ['address_blocklist', { addresses: [ADDRESS, ADDRESS] }, 'Never to 2 blocked addresses'],
      ['merchant_allowlist', { hosts: ['api.example.com'] }, 'Paid requests only to 1 allowed seller'],
      [
        'merchant_allowlist',
        { hosts: ['api.example.com', '*.example.org'] },
        'Paid requests only to 2 allowed sellers',
      ],
      ['merchant_blocklist', { hosts: ['*.evil.com'] }, 'Paid requests never to 1 blocked seller'],
      ['merchant_blocklist', { hosts: 'not a list' }, 'Paid requests never to 0 blocked sellers'],
      ['spend_cap_window', { limit: '100.000000', window: '24h' }, 'At most 100.00 USDC per 24 hours'],
      ['spend_cap_window', { limit: '5.000000', window: '1h' }, 'At most 5.00 USDC per hour'],
      [
        'recipient_cap',
        { limit: '50.000000', window: '7d' },
        'At most 50.00 USDC to any one recipient per 7 days',
      ],
      ['tx_count_cap', { count: 3, window: '1h' }, 'At most 3 payments per hour'],
      ['tx_count_cap', { count: 1, window: '30d' }, 'At most 1 payment per 30 days'],
      ['tx_count_cap', { count: 1000000, window: '24h' }, 'At most 1,000,000 payments per 24 hours'],
      [
        'time_window',
        {
          days: ['mon', 'tue', 'wed', 'thu', 'fri'],
          start: '09:00',
          end: '17:00',
          timezone: 'Europe/Berlin',
        },
        'Mon–Fri 09:00–17:00 (Europe/Berlin)',
      ],
      [
        'time_window',
        { days: ['fri', 'sat'], start: '22:00', end: '06:00', timezone: 'UTC' },
        'Fri, Sat 22:00–06:00 (overnight) (UTC)',
      ],
      ['some_future_type', { x: 1 }, 'some_future_type'],
    ];
    for (const [type, params, words] of cases) expect(describePolicyParams(type, params)).toBe(words);
  });

  it('writes days as ranges where they run on', () => {
    expect(describeDays(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'])).toBe('Every day');
    expect(describeDays(['sat', 'sun'])).toBe('Sat, Sun');
    expect(describeDays(['mon', 'wed', 'fri'])).toBe('Mon, Wed, Fri');
    expect(describeDays(['mon', 'tue', 'wed', 'sat'])).toBe('Mon–Wed, Sat');
    expect(describeDays(['sun', 'tue', 'mon'])).toBe('Mon, Tue, Sun');
  });
});

describe('violations in the dashboard’s own words', () => {
  const v = (policyType: string, fields: Partial<Violation>): Violation => ({
    policyId: 'pol_1',
    policyType: policyType as Violation['policyType'],
    reason: 'the server’s reason',
    ...fields,
  });

  it('writes every cap with its limit and what the payment would bring it to', () => {
    expect(describeViolation(v('spend_cap_per_tx', { limit: '10.000000', attempted: '25.000000' }))).toBe(
      'Over the 10.00 USDC per-payment cap (tried 25.00)',
    );
    expect(describeViolation(v('spend_cap_daily', { limit: '100.000000', attempted: '150.000000' }))).toBe(
      'Over the 100.00 USDC daily cap (would reach 150.00 in 24 hours)',
    );
    expect(describeViolation(v('spend_cap_total', { limit: '1000.000000', attempted: '1234.500000' }))).toBe(
      'Over the 1,000.00 USDC total cap (would reach 1,234.50)',
    );
    expect(
      describeViolation(
        v('spend_cap_window', { limit: '100.000000', attempted: '150.000000', window: '24h' }),
      ),
    ).toBe('Over the 100.00 USDC 24-hour budget (would reach 150.00)');
    expect(
      describeViolation(v('recipient_cap', { limit: '50.000000', attempted: '60.250000', window: '7d' })),
    ).toBe('Over the 50.00 USDC 7-day budget for this recipient (would reach 60.25)');
  });

  it('writes the payment count', () => {
    expect(describeViolation(v('tx_count_cap', { limit: 3, attempted: 4, window: '1h' }))).toBe(
      'Would be payment 4 in 1 hour; the limit is 3',
    );
    expect(describeViolation(v('tx_count_cap', { limit: 10, attempted: 11, window: '30d' }))).toBe(
      'Would be payment 11 in 30 days; the limit is 10',
    );
  });

  it('writes the recipient of the address lists, shortened', () => {
    expect(describeViolation(v('address_blocklist', { limit: null, attempted: ADDRESS }))).toBe(
      'Recipient 0xabcdef…cdef12 is blocked',
    );
    expect(describeViolation(v('address_allowlist', { limit: null, attempted: ADDRESS }))).toBe(
      'Recipient 0xabcdef…cdef12 is not on the allowed list',
    );
  });

  it('writes the seller of the merchant lists by its host', () => {
    expect(
      describeViolation(
        v('merchant_blocklist', {
          reason: 'the seller api.evil.com is on the merchant blocklist',
          limit: null,
          attempted: 'api.evil.com',
        }),
      ),
    ).toBe('Seller api.evil.com is blocked');
    expect(
      describeViolation(
        v('merchant_allowlist', {
          reason: 'the seller api.evil.com is not on the merchant allowlist',
          limit: null,
          attempted: 'api.evil.com',
        }),
      ),
    ).toBe('Seller api.evil.com is not on the allowed list');
    // A seller whose URL names no host the server could read.
    expect(describeViolation(v('merchant_allowlist', { limit: null, attempted: 'an unnamed seller' }))).toBe(
      'The seller is not on the allowed list',
    );
    expect(describeViolation(v('merchant_blocklist', {}))).toBe('The seller is blocked');
  });

  it('writes the allowed hours and the local time it was', () => {
    expect(
      describeViolation(
        v('time_window', {
          limit: 'mon,tue,wed,thu,fri 09:00-17:00 Europe/Berlin',
          attempted: 'sat 10:15',
        }),
      ),
    ).toBe('Outside allowed hours (Mon–Fri 09:00–17:00 Europe/Berlin); it was Sat 10:15');
    expect(describeAllowedHours('sat,sun 22:00-06:00 UTC')).toBe('Sat, Sun 22:00–06:00 UTC');
    expect(describeAllowedHours('something else')).toBe('something else');
    expect(describeLocalTime('sun 23:59')).toBe('Sun 23:59');
    expect(describeLocalTime('xyz 10:00')).toBe('xyz 10:00');
  });

  it('falls back to the server’s reason for an unknown type or missing fields', () => {
    expect(describeViolation(v('some_future_type', { limit: '1.000000', attempted: '2.000000' }))).toBe(
      'the server’s reason',
    );
    expect(describeViolation(v('spend_cap_per_tx', {}))).toBe('the server’s reason');
    expect(describeViolation(v('spend_cap_window', { limit: '1.000000', attempted: '2.000000' }))).toBe(
      'the server’s reason',
    );
    expect(describeViolation(v('tx_count_cap', { limit: 'x', attempted: 2, window: '1h' }))).toBe(
      'the server’s reason',
    );
    expect(describeViolation(v('time_window', { limit: null }))).toBe('the server’s reason');
    expect(describeViolation(v('require_approval_above', {}))).toBe('the server’s reason');
    expect(
      describeViolation({ policyId: 'p', policyType: 'mystery' as Violation['policyType'], reason: '' }),
    ).toBe('Breaks the policy “mystery”');
  });

  it('recognises a rejection reason that is only the joined violation reasons', () => {
    const violations = [v('spend_cap_per_tx', { reason: 'a' }), v('tx_count_cap', { reason: 'b' })];
    expect(isPolicyRejection('a; b', violations)).toBe(true);
    expect(isPolicyRejection('Not this month', violations)).toBe(false);
    expect(isPolicyRejection('a', [])).toBe(false);
    expect(isPolicyRejection(null, violations)).toBe(false);
  });
});

describe('policy history in words', () => {
  const policy = (params: Record<string, unknown>, change: Partial<Policy> = {}): Policy =>
    ({
      id: 'pol_1',
      walletId: 'wal_1',
      type: 'spend_cap_window',
      params,
      active: true,
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-01T00:00:00Z',
      ...change,
    }) as unknown as Policy;
  const change = (
    action: PolicyChange['action'],
    before: Policy | null,
    after: Policy | null,
  ): PolicyChange => ({
    id: 'pch_1',
    policyId: 'pol_1',
    action,
    actor: 'user:usr_1',
    before,
    after,
    createdAt: '2026-01-02T00:00:00Z',
  });
  const cap100 = policy({ limit: '100.000000', window: '24h' });
  const cap50 = policy({ window: '24h', limit: '50.000000' });

  it('says what was added, paused, resumed and deleted', () => {
    expect(describePolicyChange(change('created', null, cap100))).toBe(
      'Spending cap per period: At most 100.00 USDC per 24 hours',
    );
    expect(describePolicyChange(change('paused', cap100, { ...cap100, active: false }))).toBe(
      'Spending cap per period: At most 100.00 USDC per 24 hours',
    );
    expect(describePolicyChange(change('deleted', cap100, null))).toBe(
      'Spending cap per period: At most 100.00 USDC per 24 hours',
    );
  });

  it('says what an update changed', () => {
    expect(describePolicyChange(change('updated', cap100, cap50))).toBe(
      'Spending cap per period: from “At most 100.00 USDC per 24 hours” to “At most 50.00 USDC per 24 hours”',
    );
    expect(
      describePolicyChange(change('updated', cap100, { ...cap100, window: '24h' } as unknown as Policy)),
    ).toMatch(/saved without changes/);
    expect(describePolicyChange(change('updated', cap100, { ...cap50, active: false }))).toMatch(
      /; and paused$/,
    );
  });

  it('lists the addresses an update added and removed', () => {
    const other = `0x${'1'.repeat(40)}`;
    const before = policy({ addresses: [ADDRESS] }, { type: 'address_blocklist' });
    const after = policy({ addresses: [ADDRESS, other] }, { type: 'address_blocklist' });
    expect(describePolicyChange(change('updated', before, after))).toBe(
      'Blocked recipients: added 0x111111…111111 (now 2 addresses)',
    );
    expect(describePolicyChange(change('updated', after, before))).toBe(
      'Blocked recipients: removed 0x111111…111111 (now 1 address)',
    );
  });

  it('lists the hosts an update added to and removed from a merchant list', () => {
    const before = policy({ hosts: ['api.example.com', 'old.example.com'] }, { type: 'merchant_allowlist' });
    const after = policy(
      { hosts: ['api.example.com', '*.example.org', 'new.example.net'] },
      { type: 'merchant_allowlist' },
    );
    expect(describePolicyChange(change('updated', before, after))).toBe(
      'Allowed sellers: added *.example.org, new.example.net; removed old.example.com (now 3 hosts)',
    );
    const blocked = policy({ hosts: ['api.evil.com'] }, { type: 'merchant_blocklist' });
    expect(describePolicyChange(change('created', null, blocked))).toBe(
      'Blocked sellers: Paid requests never to 1 blocked seller',
    );
  });
});

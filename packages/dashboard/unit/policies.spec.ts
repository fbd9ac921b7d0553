import type { Policy } from '@agent-wallet/sdk';
import { describe, expect, it } from 'vitest';
import {
  checkClock,
  checkCount,
  checkHost,
  checkPolicyParams,
  checkTimezone,
  draftFrom,
  emptyDraft,
  HOST_PATTERN,
  type ParamsDraft,
  splitAddresses,
} from '../src/views/policyForm.ts';

const A = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const B = '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359';

const draft = (change: Partial<ParamsDraft>): ParamsDraft => ({ ...emptyDraft('Europe/Berlin'), ...change });

describe('policy params', () => {
  it('sends caps as {limit} and the approval threshold as {amount}', () => {
    expect(checkPolicyParams('spend_cap_daily', draft({ amount: '50.5' }))).toEqual({
      ok: true,
      params: { limit: '50.5' },
    });
    expect(checkPolicyParams('require_approval_above', draft({ amount: '10' }))).toEqual({
      ok: true,
      params: { amount: '10' },
    });
    const bad = checkPolicyParams('spend_cap_per_tx', draft({ amount: '1e3' }));
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors.amount).toMatch(/exponent/);
  });

  it('splits address lists on lines, commas and spaces', () => {
    expect(splitAddresses(`${A}\n\n ${B}, ${A}`)).toEqual([A, B, A]);
  });

  it('names every bad address, for the allowlist and the blocklist alike', () => {
    for (const type of ['address_allowlist', 'address_blocklist'] as const) {
      const check = checkPolicyParams(
        type,
        draft({ addresses: `${A}\n0x1234\n0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD` }),
      );
      expect(check.ok).toBe(false);
      if (!check.ok) {
        expect(check.errors.addresses).toHaveLength(2);
        expect(check.errors.addresses?.[0]).toMatch(/^Address 2 .*40 hex digits/);
        expect(check.errors.addresses?.[1]).toMatch(/^Address 3 .*checksum/);
      }
      expect(checkPolicyParams(type, draft({ addresses: ' ' }))).toEqual({
        ok: false,
        errors: { addresses: ['Enter at least one address.'] },
      });
      expect(checkPolicyParams(type, draft({ addresses: `${A}\n${B}` }))).toEqual({
        ok: true,
        params: { addresses: [A, B] },
      });
    }
  });

  it('refuses more than 1,000 addresses', () => {
    const many = Array.from({ length: 1001 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`).join('\n');
    const check = checkPolicyParams('address_blocklist', draft({ addresses: many }));
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.errors.addresses).toEqual(['At most 1000 addresses.']);
  });
});

describe('merchant lists (merchant_allowlist, merchant_blocklist)', () => {
  it('takes host names and *. with a domain, as the server does, lower-cased', () => {
    for (const host of [
      'api.example.com',
      'localhost',
      'a',
      '127.0.0.1',
      'xn--bcher-kva.example',
      'my-api.example.co.uk',
      '*.example.com',
      '*.com',
      `${'a'.repeat(63)}.example.com`,
    ]) {
      expect(checkHost(host), host).toEqual({ ok: true, value: host });
    }
    expect(checkHost(' API.Example.COM ')).toEqual({ ok: true, value: 'api.example.com' });
    expect(checkHost('*.Example.com')).toEqual({ ok: true, value: '*.example.com' });
  });

  it('refuses what the server’s host pattern refuses, saying why', () => {
    const reason = (host: string) => {
      const check = checkHost(host);
      expect(check.ok, host).toBe(false);
      return check.ok ? '' : check.reason;
    };
    expect(reason('https://api.example.com')).toMatch(/^Write the host only, without https:\/\//);
    expect(reason('api.example.com/v1/report')).toMatch(/^Write the host only/);
    expect(reason('api.example.com:8443')).toBe('Leave out the port: write the host only.');
    expect(reason('api.*.com')).toBe('A * may only open the host, as in *.example.com.');
    expect(reason('*example.com')).toBe('A * may only open the host, as in *.example.com.');
    expect(reason('*')).toBe('A * may only open the host, as in *.example.com.');
    expect(reason('*.')).toBe('A * may only open the host, as in *.example.com.');
    for (const bad of [
      '-api.example.com',
      'api-.example.com',
      'api..example.com',
      'api.example.com.',
      '.example.com',
      'api_v1.example.com',
      'bücher.example',
      `${'a'.repeat(64)}.example.com`,
    ]) {
      expect(reason(bad), bad).toMatch(/^Must be a host name \(api\.example\.com\) or \*\. and a domain/);
    }
    expect(reason(`${'abcdefghi.'.repeat(25)}example`)).toMatch(/^Too long: a host has at most 253/);
  });

  it('agrees with the server’s pattern on every host it accepts', () => {
    // The server's HOST_PATTERN (routes/policies/schemas.ts), copied as its source text.
    const server =
      /^(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
    expect(HOST_PATTERN.source).toBe(server.source);
    for (const host of ['api.example.com', '*.example.com', 'a-b.c', 'x:1', 'a/b', '*.*.a', 'a b']) {
      const ours = checkHost(host).ok;
      expect(ours, host).toBe(server.test(host) && host.length <= 253);
    }
  });

  it('names every bad line, for the allowlist and the blocklist alike, and sends the hosts', () => {
    for (const type of ['merchant_allowlist', 'merchant_blocklist'] as const) {
      const check = checkPolicyParams(
        type,
        draft({ hosts: 'api.example.com\nhttps://shop.example.com/buy\n*.Example.org\nbad_host' }),
      );
      expect(check.ok).toBe(false);
      if (!check.ok) {
        expect(check.errors.hosts).toHaveLength(2);
        expect(check.errors.hosts?.[0]).toMatch(
          /^Host 2 \(https:\/\/shop\.example\.com\/buy\): Write the host only/,
        );
        expect(check.errors.hosts?.[1]).toMatch(/^Host 4 \(bad_host\): Must be a host name/);
      }
      expect(checkPolicyParams(type, draft({ hosts: ' \n ' }))).toEqual({
        ok: false,
        errors: { hosts: ['Enter at least one host.'] },
      });
      expect(checkPolicyParams(type, draft({ hosts: 'api.example.com\n\n*.Example.org ' }))).toEqual({
        ok: true,
        params: { hosts: ['api.example.com', '*.example.org'] },
      });
    }
  });

  it('refuses more than 1,000 hosts', () => {
    const many = Array.from({ length: 1001 }, (_, i) => `h${i}.example.com`).join('\n');
    const check = checkPolicyParams('merchant_blocklist', draft({ hosts: many }));
    expect(check).toEqual({ ok: false, errors: { hosts: ['At most 1000 hosts.'] } });
  });
});

describe('windowed caps (spend_cap_window, recipient_cap)', () => {
  it('sends {limit, window}', () => {
    expect(checkPolicyParams('spend_cap_window', draft({ amount: '100', window: '24h' }))).toEqual({
      ok: true,
      params: { limit: '100', window: '24h' },
    });
    expect(checkPolicyParams('recipient_cap', draft({ amount: '0.5', window: '7d' }))).toEqual({
      ok: true,
      params: { limit: '0.5', window: '7d' },
    });
  });

  it('names a bad amount and a window that is not one of the four', () => {
    const check = checkPolicyParams(
      'spend_cap_window',
      draft({ amount: '', window: '2h' as ParamsDraft['window'] }),
    );
    expect(check).toEqual({ ok: false, errors: { amount: 'Enter an amount.', window: 'Choose a period.' } });
  });
});

describe('tx_count_cap', () => {
  it('sends {count, window} with count as a number', () => {
    expect(checkPolicyParams('tx_count_cap', draft({ count: ' 3 ', window: '1h' }))).toEqual({
      ok: true,
      params: { count: 3, window: '1h' },
    });
  });

  it('wants a whole number from 1 to 1,000,000', () => {
    expect(checkCount('')).toEqual({ ok: false, reason: 'Enter a number of payments.' });
    expect(checkCount('2.5')).toMatchObject({ ok: false, reason: expect.stringMatching(/whole number/) });
    expect(checkCount('-1')).toMatchObject({ ok: false, reason: expect.stringMatching(/whole number/) });
    expect(checkCount('1e3')).toMatchObject({ ok: false });
    expect(checkCount('0')).toEqual({ ok: false, reason: 'Allow at least 1 payment.' });
    expect(checkCount('1000001')).toEqual({ ok: false, reason: 'Allow at most 1,000,000 payments.' });
    expect(checkCount('1000000')).toEqual({ ok: true, value: 1_000_000 });
    const check = checkPolicyParams('tx_count_cap', draft({ count: 'three' }));
    expect(check.ok).toBe(false);
    if (!check.ok) expect(Object.keys(check.errors)).toEqual(['count']);
  });
});

describe('time_window', () => {
  it('sends days in week order, HH:MM times and the canonical timezone name', () => {
    expect(
      checkPolicyParams(
        'time_window',
        draft({ days: ['fri', 'mon'], start: '9:00', end: '17:30', timezone: 'europe/berlin' }),
      ),
    ).toEqual({
      ok: true,
      params: { days: ['mon', 'fri'], start: '09:00', end: '17:30', timezone: 'Europe/Berlin' },
    });
  });

  it('allows an end before the start (overnight) but not the same time', () => {
    expect(checkPolicyParams('time_window', draft({ start: '22:00', end: '06:00' })).ok).toBe(true);
    const same = checkPolicyParams('time_window', draft({ start: '09:00', end: '09:00' }));
    expect(same).toEqual({
      ok: false,
      errors: { end: expect.stringMatching(/^The end must differ from the start/) },
    });
  });

  it('names each bad field: no day, bad times, unknown timezone', () => {
    const check = checkPolicyParams(
      'time_window',
      draft({ days: [], start: '24:00', end: '9.30', timezone: 'Mars/Olympus_Mons' }),
    );
    expect(check.ok).toBe(false);
    if (!check.ok) {
      expect(check.errors.days).toBe('Choose at least one day.');
      expect(check.errors.start).toBe('Hours go from 00 to 23 (24-hour clock).');
      expect(check.errors.end).toMatch(/HH:MM/);
      expect(check.errors.timezone).toMatch(/IANA name/);
    }
  });

  it('checks clocks and timezones on their own', () => {
    expect(checkClock('')).toEqual({ ok: false, reason: 'Enter a time as HH:MM, e.g. 09:00.' });
    expect(checkClock('12:60')).toEqual({ ok: false, reason: 'Minutes go from 00 to 59.' });
    expect(checkClock('0:05')).toEqual({ ok: true, value: '00:05' });
    expect(checkClock('23:59')).toEqual({ ok: true, value: '23:59' });
    expect(checkClock('noon').ok).toBe(false);
    expect(checkTimezone('UTC')).toEqual({ ok: true, value: 'UTC' });
    expect(checkTimezone('America/New_York')).toEqual({ ok: true, value: 'America/New_York' });
    expect(checkTimezone('')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^Enter a timezone/),
    });
    expect(checkTimezone('x'.repeat(65)).ok).toBe(false);
  });

  it('defaults to Mon–Fri 09:00–17:00 in the given (browser) timezone', () => {
    expect(emptyDraft('Asia/Tokyo')).toMatchObject({
      days: ['mon', 'tue', 'wed', 'thu', 'fri'],
      start: '09:00',
      end: '17:00',
      timezone: 'Asia/Tokyo',
      window: '24h',
    });
    const fromBrowser = emptyDraft().timezone;
    expect(fromBrowser).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });
});

describe('edit forms start from the policy', () => {
  const policy = (type: Policy['type'], params: Record<string, unknown>): Policy =>
    ({
      id: 'pol_1',
      walletId: 'wal_1',
      type,
      params,
      active: true,
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-01T00:00:00Z',
    }) as unknown as Policy;

  it('fills every kind of field', () => {
    expect(draftFrom(policy('spend_cap_window', { limit: '100.500000', window: '7d' }), 'UTC')).toMatchObject(
      {
        amount: '100.5',
        window: '7d',
      },
    );
    expect(draftFrom(policy('tx_count_cap', { count: 3, window: '1h' }), 'UTC')).toMatchObject({
      count: '3',
      window: '1h',
    });
    expect(draftFrom(policy('address_blocklist', { addresses: [A, B] }), 'UTC').addresses).toBe(`${A}\n${B}`);
    expect(
      draftFrom(policy('merchant_allowlist', { hosts: ['api.example.com', '*.example.org'] }), 'UTC').hosts,
    ).toBe('api.example.com\n*.example.org');
    expect(
      checkPolicyParams(
        'merchant_allowlist',
        draftFrom(policy('merchant_allowlist', { hosts: ['api.example.com', '*.example.org'] }), 'UTC'),
      ),
    ).toEqual({ ok: true, params: { hosts: ['api.example.com', '*.example.org'] } });
    const window = { days: ['sat', 'sun'], start: '10:00', end: '02:00', timezone: 'Europe/Berlin' };
    expect(draftFrom(policy('time_window', window), 'UTC')).toMatchObject(window);
    // What the form holds is sent back unchanged when nothing is edited.
    expect(checkPolicyParams('time_window', draftFrom(policy('time_window', window), 'UTC'))).toEqual({
      ok: true,
      params: window,
    });
  });
});

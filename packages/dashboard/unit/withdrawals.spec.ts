import { describe, expect, it } from 'vitest';
import {
  activeAddresses,
  addressDraftErrors,
  describeDelay,
  formatCountdown,
  isActive,
  labelOf,
} from '../src/views/withdrawals.ts';

describe('formatCountdown: the wait of a new withdrawal address', () => {
  it('leads with the largest unit and pads the ones after it', () => {
    expect(formatCountdown(86_400)).toBe('1 d 0 h 0 min');
    expect(formatCountdown(2 * 86_400 + 3 * 3600 + 4 * 60 + 5)).toBe('2 d 3 h 4 min');
    expect(formatCountdown(23 * 3600 + 5 * 60 + 9)).toBe('23 h 05 min 09 s');
    expect(formatCountdown(3600)).toBe('1 h 00 min 00 s');
    expect(formatCountdown(245)).toBe('4 min 05 s');
    expect(formatCountdown(60)).toBe('1 min 00 s');
    expect(formatCountdown(9)).toBe('9 s');
  });

  it('rounds a part second up and says "now" at zero or past it', () => {
    expect(formatCountdown(0.2)).toBe('1 s');
    expect(formatCountdown(0)).toBe('now');
    expect(formatCountdown(-5)).toBe('now');
  });

  it('names a configured delay in its largest whole unit', () => {
    expect(describeDelay(86_400)).toBe('1 day');
    expect(describeDelay(7200)).toBe('2 hours');
    expect(describeDelay(600)).toBe('10 minutes');
    expect(describeDelay(90)).toBe('90 seconds');
    expect(describeDelay(1)).toBe('1 second');
    expect(describeDelay(0)).toBe('no wait');
  });
});

describe('which addresses a withdrawal may go to', () => {
  const now = Date.parse('2026-05-12T10:00:00Z');
  const book = [
    { label: 'Cold', address: '0xAbC', status: 'active' as const, activatesAt: '2026-05-11T10:00:00Z' },
    { label: 'Due', address: '0xdef', status: 'pending' as const, activatesAt: '2026-05-12T09:59:59Z' },
    { label: 'Later', address: '0x123', status: 'pending' as const, activatesAt: '2026-05-13T10:00:00Z' },
  ];

  it('the active ones, and a pending one whose time has come on this clock', () => {
    expect(activeAddresses(book, now).map((entry) => entry.label)).toEqual(['Cold', 'Due']);
    expect(isActive(book[2]!, now)).toBe(false);
    expect(isActive(book[2]!, Date.parse('2026-05-13T10:00:00Z'))).toBe(true);
    expect(isActive({ status: 'pending', activatesAt: 'not a date' }, now)).toBe(false);
  });

  it('finds a label by address in any case', () => {
    expect(labelOf(book, '0xABC')).toBe('Cold');
    expect(labelOf(book, '0x999')).toBeNull();
  });
});

describe('a new address book entry', () => {
  const good = `0x${'ab'.repeat(20)}`;

  it('needs a name and a valid address', () => {
    expect(addressDraftErrors({ label: 'Cold storage', address: good })).toEqual({});
    expect(addressDraftErrors({ label: '  ', address: good }).label).toMatch(/Give the address a name/);
    expect(addressDraftErrors({ label: 'x'.repeat(101), address: good }).label).toMatch(/at most 100/);
    expect(addressDraftErrors({ label: 'ok', address: '0x1234' }).address).toMatch(/40 hex digits/);
    expect(addressDraftErrors({ label: 'ok', address: '' }).address).toBe('Enter an address.');
  });

  it('refuses a mixed-case address with a wrong checksum', () => {
    const wrong = `0xAB${'ab'.repeat(19)}`;
    expect(addressDraftErrors({ label: 'ok', address: wrong }).address).toMatch(/checksum/);
  });
});

// A calendar budget's period, as the server counts it: the month's boundary, weeks from Monday, DST days.
import { describe, expect, it } from 'vitest';
import { periodBounds, resetWords } from '../src/calendarPeriod.ts';

const utc = (text: string) => Date.parse(text);

describe('periodBounds', () => {
  it('a month in Berlin runs from local midnight of the 1st to the next 1st', () => {
    // 30 Nov 23:30 in Berlin is still November; 1 Dec 00:00 Berlin is 30 Nov 23:00 UTC.
    const lateNovember = periodBounds(utc('2026-11-30T22:30:00Z'), 'month', 'Europe/Berlin');
    expect(lateNovember).toEqual({
      startMs: utc('2026-10-31T23:00:00Z'),
      endMs: utc('2026-11-30T23:00:00Z'),
    });
    // The first millisecond of December counts in December.
    const december = periodBounds(utc('2026-11-30T23:00:00Z'), 'month', 'Europe/Berlin');
    expect(december?.startMs).toBe(utc('2026-11-30T23:00:00Z'));
    expect(december?.endMs).toBe(utc('2026-12-31T23:00:00Z'));
  });

  it('a month across the autumn DST change is a month of local days (one hour longer)', () => {
    const october = periodBounds(utc('2026-10-15T12:00:00Z'), 'month', 'Europe/Berlin');
    expect(october).toEqual({ startMs: utc('2026-09-30T22:00:00Z'), endMs: utc('2026-10-31T23:00:00Z') });
  });

  it('a week starts on Monday, in the timezone', () => {
    // Sunday 29 Nov 2026, 23:30 in New York (Monday 04:30 UTC): still the week of Monday 23 Nov there.
    const week = periodBounds(utc('2026-11-30T04:30:00Z'), 'week', 'America/New_York');
    expect(week).toEqual({ startMs: utc('2026-11-23T05:00:00Z'), endMs: utc('2026-11-30T05:00:00Z') });
    // The same instant in Tokyo is Monday 30 Nov, 13:30: a new week began there.
    const tokyo = periodBounds(utc('2026-11-30T04:30:00Z'), 'week', 'Asia/Tokyo');
    expect(tokyo?.startMs).toBe(utc('2026-11-29T15:00:00Z'));
    expect(new Date(tokyo?.startMs ?? 0).getUTCDay()).toBe(0); // Sunday 15:00 UTC is Monday 00:00 in Tokyo
  });

  it('a DST day is 23 or 25 hours long', () => {
    const spring = periodBounds(utc('2026-03-29T12:00:00Z'), 'day', 'Europe/Berlin');
    expect(spring).toEqual({ startMs: utc('2026-03-28T23:00:00Z'), endMs: utc('2026-03-29T22:00:00Z') });
    expect((spring!.endMs - spring!.startMs) / 3_600_000).toBe(23);
    const autumn = periodBounds(utc('2026-10-25T12:00:00Z'), 'day', 'Europe/Berlin');
    expect((autumn!.endMs - autumn!.startMs) / 3_600_000).toBe(25);
  });

  it('a day whose midnight does not exist starts at its first instant', () => {
    // Santiago moves from 00:00 to 01:00 on 6 Sep 2026: the day starts at 01:00 local (04:00 UTC).
    const day = periodBounds(utc('2026-09-06T15:00:00Z'), 'day', 'America/Santiago');
    expect(day?.startMs).toBe(utc('2026-09-06T04:00:00Z'));
    expect((day!.endMs - day!.startMs) / 3_600_000).toBe(23);
  });

  it('an unknown timezone gives no period', () => {
    expect(periodBounds(Date.now(), 'day', 'Mars/Olympus_Mons')).toBeNull();
  });
});

describe('resetWords', () => {
  it('says the reset in the viewer’s locale', () => {
    const end = utc('2026-11-30T23:00:00Z');
    expect(resetWords(end, 'month', 'en-GB', 'Europe/Berlin')).toBe('1 Dec');
    expect(resetWords(end, 'week', 'en-GB', 'Europe/Berlin')).toBe('Tue 1 Dec');
    expect(resetWords(end, 'day', 'en-GB', 'Europe/Berlin')).toBe('Tue 00:00');
  });
});

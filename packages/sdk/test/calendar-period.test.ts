// The calendar periods of `spend_cap_period` (src/calendar-period.ts): the server counts its budgets with this
// module and the dashboard draws its cap bars with it. Instants are drawn from a fixed seed over
// 2000–2040 in zones with DST (north and south, the 30-minute Lord Howe), without, and one that skipped a whole
// day (Apia, 2011-12-30); then the instant before each period found.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CALENDAR_PERIODS, type CalendarPeriod, calendarPeriodOf, isCalendarPeriod } from '../src/index.ts';

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'America/Sao_Paulo',
  'Australia/Lord_Howe',
  'Asia/Kolkata',
  'Pacific/Apia',
  'America/Havana',
  'Pacific/Kiritimati',
];
const FROM_MS = Date.UTC(2000, 0, 1);
const TO_MS = Date.UTC(2040, 0, 1);

/** A small seeded generator (mulberry32): the same instants on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

type Case = { instantMs: number; period: CalendarPeriod; timezone: string };

function cases(count: number): Case[] {
  const next = seeded(20_261_129);
  return Array.from({ length: count }, () => ({
    instantMs: FROM_MS + Math.floor(next() * (TO_MS - FROM_MS)),
    period: CALENDAR_PERIODS[Math.floor(next() * CALENDAR_PERIODS.length)]!,
    timezone: ZONES[Math.floor(next() * ZONES.length)]!,
  }));
}

describe('calendar periods', () => {
  test('every instant lies in its period, which starts where the one before ends', () => {
    for (const { instantMs, period, timezone } of cases(1_000)) {
      const { startMs, endMs } = calendarPeriodOf(instantMs, period, timezone);
      assert.ok(startMs <= instantMs && instantMs < endMs);
      assert.equal(calendarPeriodOf(startMs - 1, period, timezone).endMs, startMs);
    }
  });

  test('fixed boundaries: a Berlin month, a New York week from Monday, DST days of 23 and 25 hours', () => {
    const utc = (text: string) => Date.parse(text);
    assert.deepEqual(calendarPeriodOf(utc('2026-11-30T22:30:00Z'), 'month', 'Europe/Berlin'), {
      startMs: utc('2026-10-31T23:00:00Z'),
      endMs: utc('2026-11-30T23:00:00Z'),
    });
    assert.deepEqual(calendarPeriodOf(utc('2026-11-30T04:30:00Z'), 'week', 'America/New_York'), {
      startMs: utc('2026-11-23T05:00:00Z'),
      endMs: utc('2026-11-30T05:00:00Z'),
    });
    const spring = calendarPeriodOf(utc('2026-03-29T12:00:00Z'), 'day', 'Europe/Berlin');
    assert.equal((spring.endMs - spring.startMs) / 3_600_000, 23);
    const autumn = calendarPeriodOf(utc('2026-10-25T12:00:00Z'), 'day', 'Europe/Berlin');
    assert.equal((autumn.endMs - autumn.startMs) / 3_600_000, 25);
  });

  test('an unknown timezone throws; isCalendarPeriod knows the three names only', () => {
    assert.throws(() => calendarPeriodOf(0, 'day', 'Mars/Olympus_Mons'), RangeError);
    assert.deepEqual(CALENDAR_PERIODS.filter(isCalendarPeriod), ['day', 'week', 'month']);
    for (const value of ['year', 'Day', '', null, 1]) assert.equal(isCalendarPeriod(value), false);
  });
});

// Calendar periods of the `spend_cap_period` policy (contract section 10): the day, the week (from Monday) or
// the month an instant falls in, in the owner's timezone, as UTC instants [start, end). Local dates come from Intl
// (the IANA database Node ships), so a period's length is the zone's own: a day is 23 or 25 hours across a DST
// change, a month 28 to 31 days. Where local midnight does not exist (a DST gap at 00:00) the period starts at the
// first instant of the local date. Pure.

import { zoneFormatters } from '../time-window.ts';

export const PERIODS = ['day', 'week', 'month'] as const;
export type Period = (typeof PERIODS)[number];

/** A local calendar date: month 1–12, weekday 0 = Monday … 6 = Sunday. */
interface LocalDate {
  year: number;
  month: number;
  day: number;
  weekday: number;
}

const DAY_MS = 86_400_000;
/** Every zone's offset lies within this of UTC (Pacific/Kiritimati is +14:00): the search bound. */
const OFFSET_MAX_MS = 15 * 3_600_000;
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

const formatterFor = zoneFormatters({
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  weekday: 'short',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
  hourCycle: 'h23',
});

/** The local wall clock of an instant, as the UTC instant with the same fields (for offsets) and its date. */
function wallClock(instantMs: number, timezone: string): { wallMs: number; date: LocalDate } {
  const parts = formatterFor(timezone).formatToParts(new Date(instantMs));
  const field = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const date = {
    year: Number(field('year')),
    month: Number(field('month')),
    day: Number(field('day')),
    weekday: WEEKDAYS.indexOf(field('weekday')),
  };
  const wallMs =
    Date.UTC(
      date.year,
      date.month - 1,
      date.day,
      Number(field('hour')),
      Number(field('minute')),
      Number(field('second')),
    ) +
    (((instantMs % 1000) + 1000) % 1000);
  return { wallMs, date };
}

/** Orders local dates: negative, zero or positive. */
function compareDates(a: LocalDate, b: LocalDate): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}

/** A local date moved by whole days or months (calendar arithmetic, no timezone). */
function shifted(date: LocalDate, change: { days?: number; months?: number }): LocalDate {
  const moved = new Date(
    Date.UTC(date.year, date.month - 1 + (change.months ?? 0), date.day + (change.days ?? 0)),
  );
  return {
    year: moved.getUTCFullYear(),
    month: moved.getUTCMonth() + 1,
    day: moved.getUTCDate(),
    weekday: (moved.getUTCDay() + 6) % 7,
  };
}

/**
 * The first instant whose local date is `date` or later: local midnight where it exists. Two offset passes find
 * it in the usual case; a DST change at midnight falls back to a bisection, bounded by the widest offsets.
 */
export function startOfLocalDate(date: LocalDate, timezone: string): number {
  const midnightWallMs = Date.UTC(date.year, date.month - 1, date.day);
  let guess = midnightWallMs - (wallClock(midnightWallMs, timezone).wallMs - midnightWallMs);
  guess = midnightWallMs - (wallClock(guess, timezone).wallMs - guess);
  if (isFirstInstant(guess, date, timezone)) return guess;
  let low = midnightWallMs - OFFSET_MAX_MS; // before the date everywhere
  let high = midnightWallMs + OFFSET_MAX_MS; // on or after it everywhere
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (compareDates(wallClock(middle, timezone).date, date) >= 0) high = middle;
    else low = middle;
  }
  return high;
}

function isFirstInstant(instantMs: number, date: LocalDate, timezone: string): boolean {
  return (
    compareDates(wallClock(instantMs, timezone).date, date) >= 0 &&
    compareDates(wallClock(instantMs - 1, timezone).date, date) < 0
  );
}

/** The calendar period `instantMs` falls in: [startMs, endMs), in UTC milliseconds. */
export function periodOf(
  instantMs: number,
  period: Period,
  timezone: string,
): { startMs: number; endMs: number } {
  const today = wallClock(instantMs, timezone).date;
  const first =
    period === 'day'
      ? today
      : period === 'week'
        ? shifted(today, { days: -today.weekday })
        : { ...today, day: 1, weekday: 0 };
  const next =
    period === 'day'
      ? shifted(first, { days: 1 })
      : period === 'week'
        ? shifted(first, { days: 7 })
        : shifted({ ...first, day: 1 }, { months: 1 });
  const startMs = startOfLocalDate(first, timezone);
  const endMs = startOfLocalDate(next, timezone);
  // The pair of the search above: the instant lies in the period, and a period is at most 32 days long.
  if (!(startMs <= instantMs && instantMs < endMs && endMs - startMs <= 32 * DAY_MS))
    throw new Error(`no ${period} period found for ${instantMs} in ${timezone}`);
  return { startMs, endMs };
}

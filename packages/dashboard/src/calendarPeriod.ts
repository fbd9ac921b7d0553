// Calendar periods of a `spend_cap_period` budget, as the server counts them (its domain/policies/calendar-period.ts,
// mirrored here, not imported): the day, the week (from Monday) or the month an instant falls in, in the
// policy's timezone, as UTC instants [startMs, endMs). Local dates come from the browser's Intl, so a day is 23 or
// 25 hours across a DST change; where local midnight does not exist the period starts at the date's first
// instant. Pure: unit-tested.

export const PERIODS = ['day', 'week', 'month'] as const;
export type Period = (typeof PERIODS)[number];

export function isPeriod(value: unknown): value is Period {
  return typeof value === 'string' && (PERIODS as readonly string[]).includes(value);
}

/** A local calendar date: month 1–12, weekday 0 = Monday … 6 = Sunday. */
interface LocalDate {
  year: number;
  month: number;
  day: number;
  weekday: number;
}

const DAY_MS = 86_400_000;
/** Every zone's offset lies within this of UTC: the search bound. */
const OFFSET_MAX_MS = 15 * 3_600_000;
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Throws a RangeError for a timezone the browser does not know. */
function formatterFor(timezone: string): Intl.DateTimeFormat {
  const known = formatters.get(timezone);
  if (known !== undefined) return known;
  const formatter = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    weekday: 'short',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    hourCycle: 'h23',
  });
  if (formatters.size >= 64) formatters.clear();
  formatters.set(timezone, formatter);
  return formatter;
}

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

function compareDates(a: LocalDate, b: LocalDate): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}

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

function isFirstInstant(instantMs: number, date: LocalDate, timezone: string): boolean {
  return (
    compareDates(wallClock(instantMs, timezone).date, date) >= 0 &&
    compareDates(wallClock(instantMs - 1, timezone).date, date) < 0
  );
}

/** The first instant whose local date is `date` or later: local midnight where it exists. */
function startOfLocalDate(date: LocalDate, timezone: string): number {
  const midnightWallMs = Date.UTC(date.year, date.month - 1, date.day);
  let guess = midnightWallMs - (wallClock(midnightWallMs, timezone).wallMs - midnightWallMs);
  guess = midnightWallMs - (wallClock(guess, timezone).wallMs - guess);
  if (isFirstInstant(guess, date, timezone)) return guess;
  let low = midnightWallMs - OFFSET_MAX_MS;
  let high = midnightWallMs + OFFSET_MAX_MS;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (compareDates(wallClock(middle, timezone).date, date) >= 0) high = middle;
    else low = middle;
  }
  return high;
}

/**
 * The calendar period `nowMs` falls in, [startMs, endMs) in UTC milliseconds; null when the browser does not
 * know the timezone (the bar is then left out rather than drawn wrong).
 */
export function periodBounds(
  nowMs: number,
  period: Period,
  timezone: string,
): { startMs: number; endMs: number } | null {
  try {
    const today = wallClock(nowMs, timezone).date;
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
    if (!(startMs <= nowMs && nowMs < endMs && endMs - startMs <= 32 * DAY_MS)) return null;
    return { startMs, endMs };
  } catch {
    return null;
  }
}

/** "Daily", "Weekly", "Monthly". */
export const PERIOD_ADJECTIVE: Record<Period, string> = { day: 'Daily', week: 'Weekly', month: 'Monthly' };

/**
 * When a period's budget resets, in the viewer's locale and timezone: "1 Dec" (a day or week: "Mon 1 Dec,
 * 00:00"-like with the time, as a day's reset is within a day). `locale` undefined: the browser's.
 */
export function resetWords(endMs: number, period: Period, locale?: string, timeZone?: string): string {
  const date = new Date(endMs);
  const options: Intl.DateTimeFormatOptions =
    period === 'month'
      ? { day: 'numeric', month: 'short', timeZone }
      : period === 'week'
        ? { weekday: 'short', day: 'numeric', month: 'short', timeZone }
        : { weekday: 'short', hour: '2-digit', minute: '2-digit', timeZone };
  return date.toLocaleString(locale, options);
}

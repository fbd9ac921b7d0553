// Calendar periods of a `spend_cap_period` budget, as the server counts them: the counting itself is the SDK's
// (`calendarPeriodOf`, packages/sdk/src/calendar-period.ts), one module for the server and the dashboard; here
// is what the dashboard adds: a period it cannot count (a timezone this browser does not know) is null, so the
// bar is left out rather than drawn wrong, and the words for a period and its reset. Pure: unit-tested.
import { CALENDAR_PERIODS, type CalendarPeriod, calendarPeriodOf, isCalendarPeriod } from '@agent-wallet/sdk';

export const PERIODS = CALENDAR_PERIODS;
export type Period = CalendarPeriod;
export const isPeriod = isCalendarPeriod;

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
    return calendarPeriodOf(nowMs, period, timezone);
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

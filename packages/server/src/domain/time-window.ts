// The `time_window` policy: days of the week and hours when an agent may spend, in the owner's timezone. Local
// time comes from Intl (the IANA database Node ships), so daylight-saving changes are the zone's own: 09:00 in
// Europe/Berlin is 08:00 UTC in winter and 07:00 UTC in summer. Pure.

export const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Day = (typeof DAYS)[number];

export interface TimeWindowRule {
  days: ReadonlySet<Day>;
  /** Minutes after local midnight; end may be at or before start: the window then wraps midnight. */
  startMinute: number;
  endMinute: number;
  timezone: string;
}

const HH_MM = /^([01][0-9]|2[0-3]):([0-5][0-9])$/;

/** "HH:MM" (00:00–23:59) → minutes after midnight, or null. */
export function parseClock(value: string): number | null {
  const match = HH_MM.exec(value);
  return match === null ? null : Number(match[1]) * 60 + Number(match[2]);
}

export function formatClock(minute: number): string {
  return `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
}

/** Whether Intl knows the zone (an IANA name such as "Europe/Berlin" or "UTC"). */
export function isTimezone(name: string): boolean {
  if (name.length === 0 || name.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Formatters per timezone are cached (building one is the costly part), up to this many zones. */
const FORMATTERS_MAX = 256;

/** A per-timezone cache of Intl formatters with these options (en-US, so fields parse the same everywhere). */
export function zoneFormatters(
  options: Intl.DateTimeFormatOptions,
): (timezone: string) => Intl.DateTimeFormat {
  const formatters = new Map<string, Intl.DateTimeFormat>();
  return (timezone) => {
    const known = formatters.get(timezone);
    if (known !== undefined) return known;
    const formatter = new Intl.DateTimeFormat('en-US', { ...options, timeZone: timezone });
    if (formatters.size >= FORMATTERS_MAX) formatters.clear();
    formatters.set(timezone, formatter);
    return formatter;
  };
}

const formatterFor = zoneFormatters({
  weekday: 'short',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** The local weekday and minute of the day of an instant in a timezone. */
export function localTime(nowMs: number, timezone: string): { day: Day; minute: number } {
  const parts = formatterFor(timezone).formatToParts(new Date(nowMs));
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const day = part('weekday').toLowerCase().slice(0, 3) as Day;
  return { day, minute: Number(part('hour')) * 60 + Number(part('minute')) };
}

/**
 * Whether an instant is inside the window. A wrapping window (22:00–06:00) belongs to the day it starts on: Friday
 * 22:00–06:00 allows Friday night and the early hours of Saturday.
 */
export function insideTimeWindow(rule: TimeWindowRule, nowMs: number): boolean {
  const { day, minute } = localTime(nowMs, rule.timezone);
  if (rule.startMinute < rule.endMinute) {
    return rule.days.has(day) && minute >= rule.startMinute && minute < rule.endMinute;
  }
  if (minute >= rule.startMinute) return rule.days.has(day);
  if (minute < rule.endMinute) return rule.days.has(previousDay(day));
  return false;
}

function previousDay(day: Day): Day {
  return DAYS[(DAYS.indexOf(day) + DAYS.length - 1) % DAYS.length]!;
}

/** "mon,tue 09:00–17:00 Europe/Berlin": the window as a violation names it. */
export function describeTimeWindow(rule: TimeWindowRule): string {
  const days = DAYS.filter((d) => rule.days.has(d)).join(',');
  return `${days} ${formatClock(rule.startMinute)}-${formatClock(rule.endMinute)} ${rule.timezone}`;
}

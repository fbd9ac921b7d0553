import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type Day,
  describeTimeWindow,
  insideTimeWindow,
  isTimezone,
  localTime,
  parseClock,
} from './time-window.ts';

const rule = (days: Day[], start: string, end: string, timezone: string) => ({
  days: new Set(days),
  startMinute: parseClock(start)!,
  endMinute: parseClock(end)!,
  timezone,
});
const utc = (iso: string) => Date.parse(iso);

test('HH:MM is 00:00 to 23:59; timezones are IANA names Intl knows', () => {
  assert.equal(parseClock('00:00'), 0);
  assert.equal(parseClock('23:59'), 23 * 60 + 59);
  for (const bad of ['24:00', '9:00', '12:60', '12:5', 'noon', '']) assert.equal(parseClock(bad), null, bad);
  assert.ok(isTimezone('Europe/Berlin') && isTimezone('UTC') && isTimezone('America/New_York'));
  assert.ok(!isTimezone('Mars/Olympus') && !isTimezone(''));
});

test('office hours in Berlin follow daylight saving: 09:00 local is 08:00 UTC in winter, 07:00 UTC in summer', () => {
  const office = rule(['mon', 'tue', 'wed', 'thu', 'fri'], '09:00', '17:00', 'Europe/Berlin');
  // Monday 2026-01-12 (CET, UTC+1)
  assert.equal(insideTimeWindow(office, utc('2026-01-12T07:59:59.999Z')), false);
  assert.equal(insideTimeWindow(office, utc('2026-01-12T08:00:00.000Z')), true);
  assert.equal(insideTimeWindow(office, utc('2026-01-12T15:59:59.999Z')), true);
  assert.equal(insideTimeWindow(office, utc('2026-01-12T16:00:00.000Z')), false, 'end is exclusive');
  // Monday 2026-07-13 (CEST, UTC+2)
  assert.equal(insideTimeWindow(office, utc('2026-07-13T06:59:59.999Z')), false);
  assert.equal(insideTimeWindow(office, utc('2026-07-13T07:00:00.000Z')), true);
  // Saturday
  assert.equal(insideTimeWindow(office, utc('2026-07-18T10:00:00.000Z')), false);
});

test('across the spring-forward change the local clock decides (Sunday 2026-03-29 in Berlin)', () => {
  const early = rule(['sun'], '01:00', '04:00', 'Europe/Berlin');
  // 00:59 UTC = 01:59 CET (inside); 01:00 UTC = 03:00 CEST (inside: 02:00–02:59 does not exist that night)
  assert.equal(insideTimeWindow(early, utc('2026-03-29T00:59:00Z')), true);
  assert.deepEqual(localTime(utc('2026-03-29T01:00:00Z'), 'Europe/Berlin'), { day: 'sun', minute: 180 });
  assert.equal(insideTimeWindow(early, utc('2026-03-29T01:59:00Z')), true);
  assert.equal(insideTimeWindow(early, utc('2026-03-29T02:00:00Z')), false, '04:00 CEST');
});

test('a window that wraps midnight belongs to the day it starts on', () => {
  const night = rule(['fri'], '22:00', '06:00', 'UTC');
  assert.equal(insideTimeWindow(night, utc('2026-11-20T22:00:00Z')), true, 'Friday 22:00');
  assert.equal(insideTimeWindow(night, utc('2026-11-21T05:59:00Z')), true, 'Saturday 05:59, Friday’s night');
  assert.equal(insideTimeWindow(night, utc('2026-11-21T06:00:00Z')), false);
  assert.equal(insideTimeWindow(night, utc('2026-11-21T22:30:00Z')), false, 'Saturday night is not allowed');
  assert.equal(
    insideTimeWindow(night, utc('2026-11-20T05:00:00Z')),
    false,
    'Friday 05:00 is Thursday’s night',
  );
  assert.equal(describeTimeWindow(night), 'fri 22:00-06:00 UTC');
});

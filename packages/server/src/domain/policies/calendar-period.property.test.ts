// Calendar periods against an independent reference: the TC39 Temporal API (V8's, behind --harmony-temporal, in
// a child process), whose ZonedDateTime.startOfDay() is the standard's answer to "when does this local date
// begin". Random instants 2000–2040 in zones with DST (north and south, 30-minute Lord Howe), without, and one
// that skipped a whole day (Apia, 2011-12-30); then fixed boundaries: month ends of 28–31 days, the week's start,
// DST days of 23 and 25 hours, a payment at the boundary's exact millisecond.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import fc from 'fast-check';
import { PERIODS, type Period, periodOf } from './calendar-period.ts';

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'America/Sao_Paulo',
  'Australia/Lord_Howe',
  'Asia/Kolkata',
  'Pacific/Apia',
  'America/Havana',
];

type Case = { instantMs: number; period: Period; timezone: string };

const ORACLE = `
const cases = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
const out = cases.map(({ instantMs, period, timezone }) => {
  const zdt = Temporal.Instant.fromEpochMilliseconds(instantMs).toZonedDateTimeISO(timezone);
  let first = zdt.toPlainDate();
  if (period === 'week') first = first.subtract({ days: zdt.dayOfWeek - 1 });
  if (period === 'month') first = first.with({ day: 1 });
  const next = first.add(period === 'day' ? { days: 1 } : period === 'week' ? { days: 7 } : { months: 1 });
  const start = first.toZonedDateTime({ timeZone: timezone }).startOfDay().epochMilliseconds;
  const end = next.toZonedDateTime({ timeZone: timezone }).startOfDay().epochMilliseconds;
  return [start, end];
});
process.stdout.write(JSON.stringify(out));
`;

/** The reference answers, or null where this Node has no Temporal (the test then says so and skips). */
function oracle(cases: readonly Case[]): Array<[number, number]> | null {
  const run = spawnSync(process.execPath, ['--harmony-temporal', '-e', ORACLE], {
    input: JSON.stringify(cases),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) return null;
  return JSON.parse(run.stdout);
}

const temporal = oracle([{ instantMs: 0, period: 'day', timezone: 'UTC' }]) !== null;

test('periods match Temporal for random instants, periods and zones', {
  skip: temporal ? false : 'no Temporal in this Node',
}, () => {
  const cases = fc.sample(
    fc.record({
      instantMs: fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) }),
      period: fc.constantFrom(...PERIODS),
      timezone: fc.constantFrom(...ZONES),
    }),
    { numRuns: 3_000, seed: 29 },
  );
  const expected = oracle(cases)!;
  cases.forEach((c, i) => {
    const got = periodOf(c.instantMs, c.period, c.timezone);
    assert.deepEqual([got.startMs, got.endMs], expected[i], JSON.stringify(c));
  });
});

test('the boundaries themselves: the first millisecond belongs to the new period', {
  skip: temporal ? false : 'no Temporal in this Node',
}, () => {
  const starts = fc.sample(
    fc.record({
      instantMs: fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) }),
      period: fc.constantFrom(...PERIODS),
      timezone: fc.constantFrom(...ZONES),
    }),
    { numRuns: 500, seed: 290 },
  );
  for (const c of starts) {
    const { startMs, endMs } = periodOf(c.instantMs, c.period, c.timezone);
    assert.equal(periodOf(startMs, c.period, c.timezone).startMs, startMs);
    assert.equal(periodOf(endMs - 1, c.period, c.timezone).endMs, endMs);
    assert.equal(periodOf(endMs, c.period, c.timezone).startMs, endMs, 'the end is the next period’s start');
  }
});

test('days whose midnight does not exist start at their first instant, as Temporal says', {
  skip: temporal ? false : 'no Temporal in this Node',
}, () => {
  // Sao Paulo 2018-11-04 and Havana 2026-03-08 sprang from 00:00 to 01:00; Apia skipped 2011-12-30 entirely.
  const cases: Case[] = [
    ...PERIODS.map((period) => ({
      instantMs: Date.UTC(2018, 10, 4, 12),
      period,
      timezone: 'America/Sao_Paulo',
    })),
    ...PERIODS.map((period) => ({ instantMs: Date.UTC(2026, 2, 8, 12), period, timezone: 'America/Havana' })),
    ...PERIODS.map((period) => ({ instantMs: Date.UTC(2011, 11, 30, 12), period, timezone: 'Pacific/Apia' })),
    { instantMs: Date.UTC(2018, 10, 4, 3, 0, 0), period: 'day', timezone: 'America/Sao_Paulo' },
  ];
  const expected = oracle(cases)!;
  cases.forEach((c, i) => {
    const got = periodOf(c.instantMs, c.period, c.timezone);
    assert.deepEqual([got.startMs, got.endMs], expected[i], JSON.stringify(c));
  });
  const saoPaulo = periodOf(Date.UTC(2018, 10, 4, 12), 'day', 'America/Sao_Paulo');
  assert.equal(hours(saoPaulo.endMs - saoPaulo.startMs), 23);
});

const hours = (ms: number) => ms / 3_600_000;

test('month ends of 28 to 31 days, weeks from Monday, DST days of 23 and 25 hours', () => {
  const month = (y: number, m: number) => {
    const p = periodOf(Date.UTC(y, m - 1, 15, 12), 'month', 'UTC');
    return (p.endMs - p.startMs) / 86_400_000;
  };
  assert.deepEqual([month(2026, 2), month(2028, 2), month(2026, 4), month(2026, 1)], [28, 29, 30, 31]);
  // 2026-11-27 is a Friday: its week began on Monday the 23rd, local midnight in Berlin (UTC+1).
  const week = periodOf(Date.UTC(2026, 10, 27, 10), 'week', 'Europe/Berlin');
  assert.equal(new Date(week.startMs).toISOString(), '2026-11-22T23:00:00.000Z');
  assert.equal(hours(week.endMs - week.startMs), 168);
  // Berlin: 2026-03-29 has 23 hours, 2026-10-25 has 25; New York: 2026-03-08 and 2026-11-01.
  assert.equal(hours(lengthOf(Date.UTC(2026, 2, 29, 12), 'Europe/Berlin')), 23);
  assert.equal(hours(lengthOf(Date.UTC(2026, 9, 25, 12), 'Europe/Berlin')), 25);
  assert.equal(hours(lengthOf(Date.UTC(2026, 2, 8, 17), 'America/New_York')), 23);
  assert.equal(hours(lengthOf(Date.UTC(2026, 10, 1, 17), 'America/New_York')), 25);
  // A month containing the spring change is an hour short of its days.
  const march = periodOf(Date.UTC(2026, 2, 15), 'month', 'Europe/Berlin');
  assert.equal(hours(march.endMs - march.startMs), 31 * 24 - 1);
  // A payment at the exact first millisecond of the month is in the new month; one millisecond before is not.
  const april = periodOf(march.endMs, 'month', 'Europe/Berlin');
  assert.equal(april.startMs, march.endMs);
  assert.equal(periodOf(march.endMs - 1, 'month', 'Europe/Berlin').startMs, march.startMs);
});

function lengthOf(instantMs: number, timezone: string): number {
  const p = periodOf(instantMs, 'day', timezone);
  return p.endMs - p.startMs;
}

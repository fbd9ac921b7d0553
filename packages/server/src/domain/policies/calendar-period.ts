// Calendar periods of the `spend_cap_period` policy (contract section 10) are the SDK's module, one piece for the
// server's budgets and the dashboard's cap bars: pure and without dependencies, so the domain floor may import it
// (a single-file exception in .dependency-cruiser.cjs). The names here are the server's.
export {
  CALENDAR_PERIODS as PERIODS,
  type CalendarPeriod as Period,
  calendarPeriodOf as periodOf,
} from '../../../../sdk/src/calendar-period.ts';

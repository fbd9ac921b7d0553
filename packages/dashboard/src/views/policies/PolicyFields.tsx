// Single fields of a policy's params: a count, the calendar period, the rolling window, the timezone.
import { CALENDAR_PERIODS, type CalendarPeriod } from '@agent-wallet/sdk';
import { useId, useState } from 'react';
import { WINDOWS } from '../../api/wire.ts';
import { TextField } from '../../components/TextField.tsx';
import { browserTimezone, type ParamsDraft } from '../policyForm.ts';
import { WINDOW_WORDS } from '../policyInfo.ts';

/** Every IANA zone the browser knows, as suggestions for the timezone field (empty where unsupported). */
function knownTimezones(): string[] {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return [];
  }
}

const PERIOD_NAMES: Record<CalendarPeriod, string> = {
  day: 'Day',
  week: 'Week (from Monday)',
  month: 'Month',
};

export function PeriodField({
  value,
  onChange,
}: {
  value: CalendarPeriod;
  onChange: (value: CalendarPeriod) => void;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>Resets every</label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value as CalendarPeriod)}>
        {CALENDAR_PERIODS.map((period) => (
          <option key={period} value={period}>
            {PERIOD_NAMES[period]}
          </option>
        ))}
      </select>
    </div>
  );
}

export function WindowField({
  value,
  onChange,
  error,
}: {
  value: string;
  onChange: (value: ParamsDraft['window']) => void;
  error: string | undefined;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>Period</label>
      <select
        id={id}
        value={value}
        onChange={(event) => onChange(event.target.value as ParamsDraft['window'])}
        aria-invalid={error !== undefined ? true : undefined}
        aria-describedby={`${id}-hint${error !== undefined ? ` ${id}-error` : ''}`}
      >
        {WINDOWS.map((name) => (
          <option key={name} value={name}>
            {WINDOW_WORDS[name].span}
          </option>
        ))}
      </select>
      <p className="hint" id={`${id}-hint`}>
        Rolling: the last {WINDOW_WORDS[value as ParamsDraft['window']]?.span ?? 'period'} before each
        payment.
      </p>
      {error !== undefined && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** An IANA timezone, with the names this browser knows offered as suggestions. */
export function TimezoneField({
  value,
  onChange,
  error,
}: {
  value: string;
  onChange: (timezone: string) => void;
  error: string | undefined;
}) {
  const zonesId = useId();
  const [zones] = useState(knownTimezones);
  const own = browserTimezone();
  return (
    <>
      <TextField
        label="Timezone"
        value={value}
        onChange={onChange}
        error={error}
        hint={`An IANA name such as Europe/Berlin or UTC. This browser's timezone is ${own}.`}
        autoComplete="off"
        spellCheck={false}
        maxLength={64}
        list={zones.length > 0 ? zonesId : undefined}
      />
      {zones.length > 0 && (
        <datalist id={zonesId}>
          {zones.map((zone) => (
            <option key={zone} value={zone} />
          ))}
        </datalist>
      )}
    </>
  );
}

/** A whole number of payments, approvers or denials. */
export function CountField({
  label,
  value,
  onChange,
  error,
  placeholder,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error: string | undefined;
  placeholder: string;
}) {
  return (
    <TextField
      label={label}
      value={value}
      onChange={onChange}
      error={error}
      inputMode="numeric"
      autoComplete="off"
      spellCheck={false}
      placeholder={placeholder}
    />
  );
}

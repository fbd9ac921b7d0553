// A time_window policy's schedule: the days, the hours and the timezone.
import { useId } from 'react';
import { DAYS } from '../../api/wire.ts';
import { TextField } from '../../components/TextField.tsx';
import type { FieldErrors, ParamsDraft } from '../policyForm.ts';
import { dayName } from '../policyInfo.ts';
import { TimezoneField } from './PolicyFields.tsx';

export function ScheduleFields({
  draft,
  onChange,
  errors,
}: {
  draft: ParamsDraft;
  onChange: (draft: ParamsDraft) => void;
  errors: FieldErrors;
}) {
  const set = (change: Partial<ParamsDraft>) => onChange({ ...draft, ...change });
  return (
    <>
      <DayChoices days={draft.days} onChange={(days) => set({ days })} error={errors.days} />
      <div className="field-row">
        <TextField
          label="From (HH:MM)"
          value={draft.start}
          onChange={(start) => set({ start })}
          error={errors.start}
          inputMode="numeric"
          autoComplete="off"
          spellCheck={false}
          placeholder="09:00"
          maxLength={5}
        />
        <TextField
          label="Until (HH:MM)"
          value={draft.end}
          onChange={(end) => set({ end })}
          error={errors.end}
          hint="An end before the start runs past midnight, e.g. 22:00 until 06:00."
          inputMode="numeric"
          autoComplete="off"
          spellCheck={false}
          placeholder="17:00"
          maxLength={5}
        />
      </div>
      <TimezoneField
        value={draft.timezone}
        onChange={(timezone) => set({ timezone })}
        error={errors.timezone}
      />
    </>
  );
}

function DayChoices({
  days,
  onChange,
  error,
}: {
  days: ParamsDraft['days'];
  onChange: (days: ParamsDraft['days']) => void;
  error: string | undefined;
}) {
  const daysId = useId();
  return (
    <fieldset className="field" aria-describedby={error !== undefined ? `${daysId}-error` : undefined}>
      <legend>Days</legend>
      <div className="checkbox-row">
        {DAYS.map((day) => (
          <label key={day} className="checkbox">
            <input
              type="checkbox"
              checked={days.includes(day)}
              onChange={(event) =>
                onChange(
                  event.target.checked
                    ? DAYS.filter((d) => d === day || days.includes(d))
                    : days.filter((d) => d !== day),
                )
              }
              aria-invalid={error !== undefined ? true : undefined}
            />
            <span>{dayName(day, 'long')}</span>
          </label>
        ))}
      </div>
      {error !== undefined && (
        <p className="field-error" id={`${daysId}-error`}>
          {error}
        </p>
      )}
    </fieldset>
  );
}

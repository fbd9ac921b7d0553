import { type Ref, useId, useState } from 'react';
import { checkAmount, formatAmount, toMicros } from '../money.ts';

/** The message for an amount field, or null when the value may be sent. */
export function amountError(value: string, max?: string, maxLabel = 'the available balance'): string | null {
  const check = checkAmount(value);
  if (!check.ok) return check.reason;
  if (max !== undefined && /^[0-9]+(\.[0-9]{1,6})?$/.test(max) && check.micros > toMicros(max)) {
    return `That is more than ${maxLabel} (${formatAmount(max)} USDC).`;
  }
  return null;
}

interface AmountInputProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** Show the error even if the field was not left yet (after a submit attempt). */
  showError?: boolean;
  /** Upper bound for this form (e.g. the balance it draws from), as a decimal string. */
  max?: string;
  maxLabel?: string;
  hint?: string;
  id?: string;
  disabled?: boolean;
  inputRef?: Ref<HTMLInputElement>;
}

/**
 * A USDC amount as typed text (never a number input: no float, no locale surprises). Errors appear inline
 * once the field is left with something in it, or after a submit attempt.
 */
export function AmountInput({
  label,
  value,
  onChange,
  showError = false,
  max,
  maxLabel,
  hint,
  id,
  disabled,
  inputRef,
}: AmountInputProps) {
  const autoId = useId();
  const inputId = id ?? `amount-${autoId}`;
  const errorId = `${inputId}-error`;
  const hintId = `${inputId}-hint`;
  const [left, setLeft] = useState(false);
  const error = amountError(value, max, maxLabel);
  const visible = error !== null && (showError || (left && value.trim() !== ''));
  const describedBy = [hint !== undefined ? hintId : null, visible ? errorId : null]
    .filter(Boolean)
    .join(' ');
  return (
    <div className="field">
      <label htmlFor={inputId}>{label}</label>
      <div className="amount-input">
        <input
          ref={inputRef}
          id={inputId}
          type="text"
          inputMode="decimal"
          autoComplete="off"
          spellCheck={false}
          placeholder="0.00"
          value={value}
          disabled={disabled}
          onChange={(event) => onChange(event.target.value)}
          onBlur={() => setLeft(true)}
          aria-invalid={visible ? true : undefined}
          aria-describedby={describedBy === '' ? undefined : describedBy}
        />
        <span className="unit" aria-hidden="true">
          USDC
        </span>
      </div>
      {hint !== undefined && (
        <p id={hintId} className="hint">
          {hint}
        </p>
      )}
      {visible && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

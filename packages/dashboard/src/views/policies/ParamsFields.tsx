// The params fields of a policy type, as its kind asks (an amount, a list, a window, a schedule…).
import type { PolicyType } from '@agent-wallet/sdk';
import { useId } from 'react';
import { AmountInput } from '../../components/AmountInput.tsx';
import { checkPolicyParams, type FieldErrors, type ParamsDraft } from '../policyForm.ts';
import { POLICY_INFO } from '../policyInfo.ts';
import { CountField, PeriodField, TimezoneField, WindowField } from './PolicyFields.tsx';
import { ScheduleFields } from './ScheduleFields.tsx';

export function ParamsFields({
  type,
  draft,
  onChange,
  showErrors,
}: {
  type: PolicyType;
  draft: ParamsDraft;
  onChange: (draft: ParamsDraft) => void;
  showErrors: boolean;
}) {
  const kind = POLICY_INFO[type].kind;
  const check = checkPolicyParams(type, draft);
  const errors: FieldErrors = showErrors && !check.ok ? check.errors : {};
  const set = (change: Partial<ParamsDraft>) => onChange({ ...draft, ...change });
  switch (kind) {
    case 'cap':
    case 'threshold':
      return (
        <AmountInput
          label={kind === 'cap' ? 'Limit' : 'Approval needed above'}
          value={draft.amount}
          onChange={(amount) => set({ amount })}
          showError={showErrors}
        />
      );
    case 'list':
      return (
        <AddressListField
          label={
            type === 'address_blocklist' ? 'Blocked addresses (one a line)' : 'Allowed addresses (one a line)'
          }
          value={draft.addresses}
          onChange={(addresses) => set({ addresses })}
          errors={errors.addresses ?? []}
        />
      );
    case 'hosts':
      return (
        <AddressListField
          label={
            type === 'merchant_blocklist'
              ? 'Blocked sellers (one host a line)'
              : 'Allowed sellers (one host a line)'
          }
          value={draft.hosts}
          onChange={(hosts) => set({ hosts })}
          errors={errors.hosts ?? []}
          hint="A host such as api.example.com; *.example.com covers every subdomain of example.com. These lists judge paid requests (x402 and MPP) only: other payments pass them."
          placeholder={'api.example.com\n*.example.com'}
        />
      );
    case 'windowCap':
      return (
        <div className="field-row">
          <AmountInput
            label={type === 'recipient_cap' ? 'Limit per recipient' : 'Limit'}
            value={draft.amount}
            onChange={(amount) => set({ amount })}
            showError={showErrors}
          />
          <WindowField value={draft.window} onChange={(window) => set({ window })} error={errors.window} />
        </div>
      );
    case 'approvers':
      return (
        <div className="field-row">
          <AmountInput
            label="Approvals needed above"
            value={draft.amount}
            onChange={(amount) => set({ amount })}
            showError={showErrors}
          />
          <CountField
            label="Different approvers"
            value={draft.count}
            onChange={(count) => set({ count })}
            error={errors.count}
            placeholder="2"
          />
        </div>
      );
    case 'count':
      return (
        <div className="field-row">
          <CountField
            label="Number of payments"
            value={draft.count}
            onChange={(count) => set({ count })}
            error={errors.count}
            placeholder="3"
          />
          <WindowField value={draft.window} onChange={(window) => set({ window })} error={errors.window} />
        </div>
      );
    case 'periodCap':
      return (
        <div className="field-row">
          <AmountInput
            label="Budget"
            value={draft.amount}
            onChange={(amount) => set({ amount })}
            showError={showErrors}
          />
          <PeriodField value={draft.period} onChange={(period) => set({ period })} />
          <TimezoneField
            value={draft.timezone}
            onChange={(timezone) => set({ timezone })}
            error={errors.timezone}
          />
        </div>
      );
    case 'breaker':
      return (
        <div className="field-row">
          <CountField
            label="Denied payments"
            value={draft.count}
            onChange={(count) => set({ count })}
            error={errors.count}
            placeholder="5"
          />
          <WindowField value={draft.window} onChange={(window) => set({ window })} error={errors.window} />
        </div>
      );
    case 'schedule':
      return <ScheduleFields draft={draft} onChange={onChange} errors={errors} />;
  }
}

/** A list of addresses or hosts, one a line, with each bad line's error under it. */
function AddressListField({
  label,
  value,
  onChange,
  errors,
  hint,
  placeholder,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  errors: string[];
  hint?: string;
  placeholder?: string;
}) {
  const areaId = useId();
  const describedBy = [
    hint !== undefined ? `${areaId}-hint` : null,
    errors.length > 0 ? `${areaId}-error` : null,
  ].filter((id): id is string => id !== null);
  return (
    <div className="field">
      <label htmlFor={areaId}>{label}</label>
      <textarea
        id={areaId}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        rows={4}
        spellCheck={false}
        autoComplete="off"
        autoCapitalize="none"
        className="mono"
        placeholder={placeholder}
        aria-invalid={errors.length > 0 ? true : undefined}
        aria-describedby={describedBy.length > 0 ? describedBy.join(' ') : undefined}
      />
      {hint !== undefined && (
        <p className="hint" id={`${areaId}-hint`}>
          {hint}
        </p>
      )}
      {errors.length > 0 && (
        <ul className="field-error" id={`${areaId}-error`}>
          {errors.slice(0, 10).map((error) => (
            <li key={error}>{error}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

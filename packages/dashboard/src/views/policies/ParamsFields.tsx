// The params fields of a policy type, as its kind asks (an amount, a list, a window, a schedule…).
import type { PolicyType } from '@agent-wallet/sdk';
import { type ReactNode, useId } from 'react';
import { AmountInput } from '../../components/AmountInput.tsx';
import { checkPolicyParams, type FieldErrors, type ParamsDraft } from '../policyForm.ts';
import { POLICY_INFO, type PolicyKind } from '../policyInfo.ts';
import { CountField, PeriodField, TimezoneField, WindowField } from './PolicyFields.tsx';
import { ScheduleFields } from './ScheduleFields.tsx';

/** What the fields of one kind of policy are drawn from. */
interface KindProps {
  type: PolicyType;
  draft: ParamsDraft;
  set: (change: Partial<ParamsDraft>) => void;
  errors: FieldErrors;
  showErrors: boolean;
}

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
  const check = checkPolicyParams(type, draft);
  const errors: FieldErrors = showErrors && !check.ok ? check.errors : {};
  const set = (change: Partial<ParamsDraft>) => onChange({ ...draft, ...change });
  return FIELDS_OF[POLICY_INFO[type].kind]({ type, draft, set, errors, showErrors });
}

function Amount({ label, p }: { label: string; p: KindProps }) {
  return (
    <AmountInput
      label={label}
      value={p.draft.amount}
      onChange={(amount) => p.set({ amount })}
      showError={p.showErrors}
    />
  );
}

function Window({ p }: { p: KindProps }) {
  return (
    <WindowField value={p.draft.window} onChange={(window) => p.set({ window })} error={p.errors.window} />
  );
}

function Count({ label, placeholder, p }: { label: string; placeholder: string; p: KindProps }) {
  return (
    <CountField
      label={label}
      value={p.draft.count}
      onChange={(count) => p.set({ count })}
      error={p.errors.count}
      placeholder={placeholder}
    />
  );
}

const HOSTS_HINT =
  'A host such as api.example.com; *.example.com covers every subdomain of example.com. These lists judge paid requests (x402 and MPP) only: other payments pass them.';

/** Each kind of policy's fields (POLICY_INFO names a type's kind). */
const FIELDS_OF: Record<PolicyKind, (p: KindProps) => ReactNode> = {
  cap: (p) => <Amount label="Limit" p={p} />,
  threshold: (p) => <Amount label="Approval needed above" p={p} />,
  list: (p) => (
    <AddressListField
      label={
        p.type === 'address_blocklist' ? 'Blocked addresses (one a line)' : 'Allowed addresses (one a line)'
      }
      value={p.draft.addresses}
      onChange={(addresses) => p.set({ addresses })}
      errors={p.errors.addresses ?? []}
    />
  ),
  hosts: (p) => (
    <AddressListField
      label={
        p.type === 'merchant_blocklist'
          ? 'Blocked sellers (one host a line)'
          : 'Allowed sellers (one host a line)'
      }
      value={p.draft.hosts}
      onChange={(hosts) => p.set({ hosts })}
      errors={p.errors.hosts ?? []}
      hint={HOSTS_HINT}
      placeholder={'api.example.com\n*.example.com'}
    />
  ),
  windowCap: (p) => (
    <div className="field-row">
      <Amount label={p.type === 'recipient_cap' ? 'Limit per recipient' : 'Limit'} p={p} />
      <Window p={p} />
    </div>
  ),
  approvers: (p) => (
    <div className="field-row">
      <Amount label="Approvals needed above" p={p} />
      <Count label="Different approvers" placeholder="2" p={p} />
    </div>
  ),
  count: (p) => (
    <div className="field-row">
      <Count label="Number of payments" placeholder="3" p={p} />
      <Window p={p} />
    </div>
  ),
  periodCap: (p) => (
    <div className="field-row">
      <Amount label="Budget" p={p} />
      <PeriodField value={p.draft.period} onChange={(period) => p.set({ period })} />
      <TimezoneField
        value={p.draft.timezone}
        onChange={(timezone) => p.set({ timezone })}
        error={p.errors.timezone}
      />
    </div>
  ),
  breaker: (p) => (
    <div className="field-row">
      <Count label="Denied payments" placeholder="5" p={p} />
      <Window p={p} />
    </div>
  ),
  schedule: (p) => <ScheduleFields draft={p.draft} onChange={(draft) => p.set(draft)} errors={p.errors} />,
};

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

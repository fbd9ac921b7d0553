import type { AgentWallet, Page, Policy, PolicyRule, PolicyType } from '@agent-wallet/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { DAYS, FULL_LIST_LIMIT, WINDOWS } from '../api/wire.ts';
import { useApp, useCan } from '../app-context.ts';
import { AmountInput } from '../components/AmountInput.tsx';
import { LoadError, Loading, StatusNote } from '../components/Common.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { TextField } from '../components/TextField.tsx';
import { K, refreshWallet, STALE, updateData, useAction, useResource } from '../queries.ts';
import { PolicyHistory } from './PolicyHistory.tsx';
import { PolicySimulator } from './PolicySimulator.tsx';
import {
  browserTimezone,
  CALENDAR_PERIODS,
  type CalendarPeriod,
  checkPolicyParams,
  draftFrom,
  emptyDraft,
  type FieldErrors,
  type ParamsDraft,
} from './policyForm.ts';
import {
  dayName,
  describePolicyParams,
  POLICY_INFO,
  POLICY_TYPE_ORDER,
  policyAddresses,
  policyHosts,
  WINDOW_WORDS,
} from './policyInfo.ts';

/** After the errors render, put the cursor in the first field that has one. */
function focusFirstInvalid(form: HTMLFormElement) {
  setTimeout(() => form.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus(), 0);
}

/** Every IANA zone the browser knows, as suggestions for the timezone field (empty where unsupported). */
function knownTimezones(): string[] {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return [];
  }
}

function ParamsFields({
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
          <TextField
            label="Different approvers"
            value={draft.count}
            onChange={(count) => set({ count })}
            error={errors.count}
            inputMode="numeric"
            autoComplete="off"
            spellCheck={false}
            placeholder="2"
          />
        </div>
      );
    case 'count':
      return (
        <div className="field-row">
          <TextField
            label="Number of payments"
            value={draft.count}
            onChange={(count) => set({ count })}
            error={errors.count}
            inputMode="numeric"
            autoComplete="off"
            spellCheck={false}
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
          <TextField
            label="Denied payments"
            value={draft.count}
            onChange={(count) => set({ count })}
            error={errors.count}
            inputMode="numeric"
            autoComplete="off"
            spellCheck={false}
            placeholder="5"
          />
          <WindowField value={draft.window} onChange={(window) => set({ window })} error={errors.window} />
        </div>
      );
    case 'schedule':
      return <ScheduleFields draft={draft} onChange={onChange} errors={errors} />;
  }
}

const PERIOD_NAMES: Record<CalendarPeriod, string> = {
  day: 'Day',
  week: 'Week (from Monday)',
  month: 'Month',
};

function PeriodField({
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

function WindowField({
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

function ScheduleFields({
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

/** An IANA timezone, with the names this browser knows offered as suggestions. */
function TimezoneField({
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

export function PoliciesPanel({ wallet }: { wallet: AgentWallet }) {
  const { sdk } = useApp();
  const policies = useResource(
    K.policies(wallet.id),
    () => sdk.policies.list(wallet.id, { limit: FULL_LIST_LIMIT }),
    STALE.details,
  );
  const data = policies.data;
  const mayManage = useCan()('managePolicies');
  return (
    <>
      <div className="panel-head">
        <h2>Policies</h2>
      </div>
      <p className="hint">
        Every active policy is checked on each payment the agent makes; every one it breaks is reported.
      </p>
      {mayManage && <AddPolicyForm wallet={wallet} />}
      {data === undefined ? (
        policies.error !== undefined ? (
          <LoadError error={policies.error} onRetry={policies.reload} />
        ) : (
          <Loading />
        )
      ) : data.items.length === 0 ? (
        <p className="empty">No policies: the agent can spend its whole balance.</p>
      ) : (
        <ul className="policy-list" data-testid="policy-list">
          {data.items.map((policy) => (
            <PolicyItem key={policy.id} policy={policy} />
          ))}
        </ul>
      )}
      <PolicySimulator wallet={wallet} />
      <PolicyHistory walletId={wallet.id} />
    </>
  );
}

function usePolicyWriter(walletId: string) {
  const { sdk } = useApp();
  const qc = useQueryClient();
  const key = K.policies(walletId);
  return {
    sdk,
    put(policy: Policy, added = false) {
      updateData<Page<Policy>>(qc, key, (page) =>
        added
          ? { ...page, items: [policy, ...page.items], total: page.total + 1 }
          : { ...page, items: page.items.map((item) => (item.id === policy.id ? policy : item)) },
      );
      void qc.invalidateQueries({ queryKey: K.policyChangesAll(walletId) });
      void refreshWallet(sdk, qc, walletId);
    },
    remove(policyId: string) {
      updateData<Page<Policy>>(qc, key, (page) => ({
        ...page,
        items: page.items.filter((item) => item.id !== policyId),
        total: page.total - 1,
      }));
      void qc.invalidateQueries({ queryKey: K.policyChangesAll(walletId) });
      void refreshWallet(sdk, qc, walletId);
    },
  };
}

function AddPolicyForm({ wallet }: { wallet: AgentWallet }) {
  const writer = usePolicyWriter(wallet.id);
  const [type, setType] = useState<PolicyType>('require_approval_above');
  const [draft, setDraft] = useState<ParamsDraft>(() => emptyDraft());
  const [submitted, setSubmitted] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const action = useAction();
  const typeId = useId();

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    setNote(null);
    const check = checkPolicyParams(type, draft);
    if (!check.ok) return focusFirstInvalid(event.currentTarget as HTMLFormElement);
    const failed = await action.run(async () => {
      writer.put(
        await writer.sdk.policies.create(wallet.id, { type, params: check.params } as PolicyRule),
        true,
      );
    });
    if (failed === null) {
      setDraft(emptyDraft());
      setSubmitted(false);
      setNote(`Added: ${POLICY_INFO[type].title}.`);
    }
  }

  return (
    <form className="create-policy" onSubmit={onSubmit} noValidate aria-label="Add a policy">
      <h3>Add a policy</h3>
      <div className="field">
        <label htmlFor={typeId}>Policy type</label>
        <select
          id={typeId}
          value={type}
          onChange={(event) => {
            setType(event.target.value as PolicyType);
            setSubmitted(false);
            action.setError(null);
          }}
          aria-describedby={`${typeId}-hint`}
        >
          {POLICY_TYPE_ORDER.map((name) => (
            <option key={name} value={name}>
              {POLICY_INFO[name].title}
            </option>
          ))}
        </select>
        <p className="hint" id={`${typeId}-hint`}>
          {POLICY_INFO[type].description}
        </p>
      </div>
      <ParamsFields type={type} draft={draft} onChange={setDraft} showErrors={submitted} />
      <ErrorMessage error={action.error} />
      <button type="submit" className="button primary" disabled={action.busy}>
        {action.busy ? 'Adding…' : 'Add policy'}
      </button>
      <StatusNote text={note} />
    </form>
  );
}

function PolicyItem({ policy }: { policy: Policy }) {
  const writer = usePolicyWriter(policy.walletId);
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const toggle = useAction();
  const info = POLICY_INFO[policy.type];
  const title = info?.title ?? policy.type;
  const mayManage = useCan()('managePolicies');

  return (
    <li className="policy-item" data-testid="policy-item" data-type={policy.type}>
      <div className="key-head">
        <span className="key-label">{title}</span>
        <span className={`tag ${policy.active ? 'tag-active' : 'tag-paused'}`}>
          {policy.active ? 'active' : 'paused'}
        </span>
      </div>
      <p className="policy-summary" data-testid="policy-summary">
        {describePolicyParams(policy.type, policy.params)}
      </p>
      {!editing && <AddressList addresses={policyAddresses(policy.params)} />}
      {!editing && <HostList hosts={policyHosts(policy.params)} />}
      {!mayManage ? null : editing && info !== undefined ? (
        <EditPolicyForm policy={policy} onDone={() => setEditing(false)} />
      ) : (
        <PolicyActions
          policy={policy}
          title={title}
          editable={info !== undefined}
          toggle={toggle}
          onEdit={() => setEditing(true)}
          onDelete={() => setDeleting(true)}
        />
      )}
      <ErrorMessage error={toggle.error} />
      {deleting && (
        <ConfirmDialog
          title={`Delete “${title}”?`}
          confirmLabel="Delete policy"
          danger
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await writer.sdk.policies.delete(policy.walletId, policy.id);
            writer.remove(policy.id);
          }}
        >
          <p>
            {describePolicyParams(policy.type, policy.params)}. Once deleted it no longer applies; pause it
            instead to keep it for later.
          </p>
        </ConfirmDialog>
      )}
    </li>
  );
}

/** An allow- or blocklist's addresses, the first 20. */
function AddressList({ addresses }: { addresses: string[] }) {
  if (addresses.length === 0) return null;
  return (
    <ul className="address-list">
      {addresses.slice(0, 20).map((address) => (
        <li key={address}>
          <code className="address small">{address}</code>
        </li>
      ))}
      {addresses.length > 20 && <li>… and {addresses.length - 20} more</li>}
    </ul>
  );
}

/** A merchant list's hosts, the first 20. */
function HostList({ hosts }: { hosts: string[] }) {
  if (hosts.length === 0) return null;
  return (
    <ul className="address-list" data-testid="host-list">
      {hosts.slice(0, 20).map((host) => (
        <li key={host}>
          <code className="address small">{host}</code>
        </li>
      ))}
      {hosts.length > 20 && <li>… and {hosts.length - 20} more</li>}
    </ul>
  );
}

/** Edit, pause or resume (at once), delete (after confirming). */
function PolicyActions({
  policy,
  title,
  editable,
  toggle,
  onEdit,
  onDelete,
}: {
  policy: Policy;
  title: string;
  editable: boolean;
  toggle: ReturnType<typeof useAction>;
  onEdit: () => void;
  onDelete: () => void;
}) {
  const writer = usePolicyWriter(policy.walletId);
  return (
    <div className="actions">
      {editable && (
        <button
          type="button"
          className="button secondary small"
          onClick={onEdit}
          aria-label={`Edit ${title}`}
        >
          Edit
        </button>
      )}
      <button
        type="button"
        className="button secondary small"
        disabled={toggle.busy}
        onClick={() =>
          toggle.run(async () => {
            writer.put(
              await writer.sdk.policies.update(policy.walletId, policy.id, { active: !policy.active }),
            );
          })
        }
      >
        {policy.active ? 'Pause' : 'Resume'}
      </button>
      <button type="button" className="button secondary small" onClick={onDelete}>
        Delete
      </button>
    </div>
  );
}

function EditPolicyForm({ policy, onDone }: { policy: Policy; onDone: () => void }) {
  const writer = usePolicyWriter(policy.walletId);
  const [draft, setDraft] = useState<ParamsDraft>(() => draftFrom(policy));
  const [submitted, setSubmitted] = useState(false);
  const action = useAction();

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    const check = checkPolicyParams(policy.type, draft);
    if (!check.ok) return focusFirstInvalid(event.currentTarget as HTMLFormElement);
    const failed = await action.run(async () => {
      writer.put(await writer.sdk.policies.update(policy.walletId, policy.id, { params: check.params }));
    });
    if (failed === null) onDone();
  }

  return (
    <form className="edit-policy" onSubmit={onSubmit} noValidate aria-label="Edit policy">
      <ParamsFields type={policy.type} draft={draft} onChange={setDraft} showErrors={submitted} />
      <ErrorMessage error={action.error} />
      <div className="actions">
        <button type="submit" className="button primary small" disabled={action.busy}>
          {action.busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" className="button secondary small" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

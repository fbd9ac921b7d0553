import { type FormEvent, useId, useState } from 'react';
import { checkAddress } from '../address.ts';
import {
  type AgentWallet,
  type Page,
  POLICY_TYPES,
  type Policy,
  type PolicyParams,
  type PolicyType,
} from '../api/types.ts';
import { useApp } from '../app-context.ts';
import { AmountInput } from '../components/AmountInput.tsx';
import { LoadError, Loading, StatusNote } from '../components/Common.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { K, MAX_AGE, refreshWallet, useAction, useResource } from '../data.ts';
import { checkAmount, trimAmount } from '../money.ts';
import { describePolicyParams, POLICY_INFO, policyAddresses } from './policyInfo.ts';

export const ALLOWLIST_MAX = 1000;

export interface ParamsDraft {
  amount: string;
  addresses: string;
}

export type ParamsCheck = { ok: true; params: PolicyParams } | { ok: false; addressErrors: string[] };

/** Splits the allowlist text (one address a line; commas and spaces also separate). */
export function splitAddresses(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/** Validates a draft for a policy type; the params to send, or what is wrong with the addresses. */
export function checkPolicyParams(type: PolicyType, draft: ParamsDraft): ParamsCheck {
  const field = POLICY_INFO[type].field;
  if (field !== 'addresses') {
    const amount = checkAmount(draft.amount);
    if (!amount.ok) return { ok: false, addressErrors: [] };
    return { ok: true, params: field === 'limit' ? { limit: amount.value } : { amount: amount.value } };
  }
  const addresses = splitAddresses(draft.addresses);
  const errors: string[] = [];
  if (addresses.length === 0) errors.push('Enter at least one address.');
  if (addresses.length > ALLOWLIST_MAX) errors.push(`At most ${ALLOWLIST_MAX} addresses.`);
  addresses.forEach((address, index) => {
    const check = checkAddress(address);
    if (!check.ok) errors.push(`Address ${index + 1} (${address.slice(0, 50)}): ${check.reason}`);
  });
  return errors.length > 0 ? { ok: false, addressErrors: errors } : { ok: true, params: { addresses } };
}

/** After the errors render, put the cursor in the first field that has one. */
function focusFirstInvalid(form: HTMLFormElement) {
  setTimeout(() => form.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus(), 0);
}

function draftFrom(policy: Policy): ParamsDraft {
  const raw = policy.params.limit ?? policy.params.amount;
  return {
    amount: typeof raw === 'string' ? trimAmount(raw) : '',
    addresses: policyAddresses(policy.params).join('\n'),
  };
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
  const field = POLICY_INFO[type].field;
  const areaId = useId();
  if (field !== 'addresses') {
    return (
      <AmountInput
        label={field === 'limit' ? 'Limit' : 'Approval needed above'}
        value={draft.amount}
        onChange={(amount) => onChange({ ...draft, amount })}
        showError={showErrors}
      />
    );
  }
  const check = checkPolicyParams(type, draft);
  const errors = showErrors && !check.ok ? check.addressErrors : [];
  return (
    <div className="field">
      <label htmlFor={areaId}>Allowed addresses (one a line)</label>
      <textarea
        id={areaId}
        value={draft.addresses}
        onChange={(event) => onChange({ ...draft, addresses: event.target.value })}
        rows={4}
        spellCheck={false}
        autoComplete="off"
        className="mono"
        aria-invalid={errors.length > 0 ? true : undefined}
        aria-describedby={errors.length > 0 ? `${areaId}-error` : undefined}
      />
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

export function PoliciesPanel({ wallet }: { wallet: AgentWallet }) {
  const { api } = useApp();
  const policies = useResource(K.policies(wallet.id), () => api.policies(wallet.id), MAX_AGE.details);
  const data = policies.data;
  return (
    <>
      <div className="panel-head">
        <h2>Policies</h2>
      </div>
      <p className="hint">
        Every active policy is checked on each payment the agent makes; every one it breaks is reported.
      </p>
      <AddPolicyForm wallet={wallet} />
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
    </>
  );
}

function usePolicyWriter(walletId: string) {
  const { api, cache } = useApp();
  const key = K.policies(walletId);
  return {
    api,
    put(policy: Policy, added = false) {
      cache.update<Page<Policy>>(key, (page) =>
        added
          ? { ...page, items: [policy, ...page.items], total: page.total + 1 }
          : { ...page, items: page.items.map((item) => (item.id === policy.id ? policy : item)) },
      );
      void refreshWallet(api, cache, walletId);
    },
    remove(policyId: string) {
      cache.update<Page<Policy>>(key, (page) => ({
        ...page,
        items: page.items.filter((item) => item.id !== policyId),
        total: page.total - 1,
      }));
      void refreshWallet(api, cache, walletId);
    },
  };
}

function AddPolicyForm({ wallet }: { wallet: AgentWallet }) {
  const writer = usePolicyWriter(wallet.id);
  const [type, setType] = useState<PolicyType>('require_approval_above');
  const [draft, setDraft] = useState<ParamsDraft>({ amount: '', addresses: '' });
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
      writer.put(await writer.api.createPolicy(wallet.id, type, check.params), true);
    });
    if (failed === null) {
      setDraft({ amount: '', addresses: '' });
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
          {POLICY_TYPES.map((name) => (
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
  const addresses = policyAddresses(policy.params);

  return (
    <li className="policy-item" data-testid="policy-item" data-type={policy.type}>
      <div className="key-head">
        <span className="key-label">{info?.title ?? policy.type}</span>
        <span className={`tag ${policy.active ? 'tag-active' : 'tag-paused'}`}>
          {policy.active ? 'active' : 'paused'}
        </span>
      </div>
      <p className="policy-summary">{describePolicyParams(policy.type, policy.params)}</p>
      {addresses.length > 0 && !editing && (
        <ul className="address-list">
          {addresses.slice(0, 20).map((address) => (
            <li key={address}>
              <code className="address small">{address}</code>
            </li>
          ))}
          {addresses.length > 20 && <li>… and {addresses.length - 20} more</li>}
        </ul>
      )}
      {editing ? (
        <EditPolicyForm policy={policy} onDone={() => setEditing(false)} />
      ) : (
        <div className="actions">
          <button type="button" className="button secondary small" onClick={() => setEditing(true)}>
            Edit
          </button>
          <button
            type="button"
            className="button secondary small"
            disabled={toggle.busy}
            onClick={() =>
              toggle.run(async () => {
                writer.put(
                  await writer.api.updatePolicy(policy.walletId, policy.id, { active: !policy.active }),
                );
              })
            }
          >
            {policy.active ? 'Pause' : 'Resume'}
          </button>
          <button type="button" className="button danger small" onClick={() => setDeleting(true)}>
            Delete
          </button>
        </div>
      )}
      <ErrorMessage error={toggle.error} />
      {deleting && (
        <ConfirmDialog
          title={`Delete “${info?.title ?? policy.type}”?`}
          confirmLabel="Delete policy"
          danger
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await writer.api.deletePolicy(policy.walletId, policy.id);
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
      writer.put(await writer.api.updatePolicy(policy.walletId, policy.id, { params: check.params }));
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

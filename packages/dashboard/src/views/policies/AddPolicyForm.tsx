// The form that adds a policy: its type, then the params that type takes.
import type { AgentWallet, PolicyRule, PolicyType } from '@agent-wallet/sdk';
import { type FormEvent, useId, useState } from 'react';
import { StatusNote } from '../../components/Common.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { useAction } from '../../queries.ts';
import { checkPolicyParams, emptyDraft, type ParamsDraft } from '../policyForm.ts';
import { POLICY_INFO, POLICY_TYPE_ORDER } from '../policyInfo.ts';
import { ParamsFields } from './ParamsFields.tsx';
import { focusFirstInvalid, usePolicyWriter } from './policyWriter.ts';

export function AddPolicyForm({ wallet }: { wallet: AgentWallet }) {
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

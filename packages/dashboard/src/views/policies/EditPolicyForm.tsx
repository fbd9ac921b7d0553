// A policy's params edited in place (its type stays).
import type { Policy } from '@agent-wallet/sdk';
import { type FormEvent, useState } from 'react';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { useAction } from '../../queries.ts';
import { checkPolicyParams, draftFrom, type ParamsDraft } from '../policyForm.ts';
import { ParamsFields } from './ParamsFields.tsx';
import { focusFirstInvalid, usePolicyWriter } from './policyWriter.ts';

export function EditPolicyForm({ policy, onDone }: { policy: Policy; onDone: () => void }) {
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

// One policy in the list: what it does, its addresses or hosts, and its actions (edit, pause or resume, delete).
import type { Policy } from '@agent-wallet/sdk';
import { useState } from 'react';
import { useCan } from '../../app-context.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { useAction } from '../../queries.ts';
import { describePolicyParams, POLICY_INFO, policyAddresses, policyHosts } from '../policyInfo.ts';
import { EditPolicyForm } from './EditPolicyForm.tsx';
import { usePolicyWriter } from './policyWriter.ts';

export function PolicyItem({ policy }: { policy: Policy }) {
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

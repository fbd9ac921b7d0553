// The organization's members (contract section 9): who they are, their role, whether they have a second factor
// and since when they are here. An owner also changes roles, removes members, invites by email and role (the
// invitation link is shown once, with a copy button), revokes open invitations and decides whether every member
// must have a second factor. Everyone else sees the list only: what a role cannot do is not offered.
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useRef, useState } from 'react';
import type { CreatedInvitation, Invitation, Member, Organization } from '../api/organization.ts';
import { useApp, useCan } from '../app-context.ts';
import { LoadError, Loading, StatusNote } from '../components/Common.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { Dialog } from '../components/Dialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { TextField } from '../components/TextField.tsx';
import { formatDateTime } from '../format.ts';
import { K, type ResourceState, STALE, updateData, useAction, useResource } from '../queries.ts';
import { isRole, ROLE_WORDS, ROLES, type Role } from '../roles.ts';
import { emailError } from './authForm.ts';
import { invitationLink } from './invitation.ts';
import { removalNote } from './memberWords.ts';

type MemberList = { items: Member[] };
type InvitationList = { items: Invitation[] };

export function MembersView() {
  const { client } = useApp();
  const can = useCan();
  const manage = can('manageMembers');
  const members = useResource<MemberList>(K.members, () => client.org.members(), STALE.members);
  const [note, setNote] = useState<string | null>(null);
  return (
    <>
      <PageHeading title="Members">Members</PageHeading>
      <p className="lead">
        The people of your organization and what each may do: owners everything, admins wallets, keys,
        policies and webhooks, approvers approve and reject held payments, viewers read.
      </p>
      <OrganizationSettings />
      <section className="card" aria-labelledby="members-title">
        <h2 id="members-title">
          Members{members.data !== undefined ? ` (${members.data.items.length})` : ''}
        </h2>
        <StatusNote text={note} />
        <MemberTable members={members} manage={manage} onNote={setNote} />
      </section>
      {manage && <Invitations />}
    </>
  );
}

/** "Require a second factor for every member": shown to all, changed by an owner. */
function OrganizationSettings() {
  const { client } = useApp();
  const qc = useQueryClient();
  const mayChange = useCan()('manageOrganization');
  const organization = useResource<Organization>(
    K.organization,
    () => client.org.organization(),
    STALE.members,
  );
  const action = useAction();
  const [note, setNote] = useState<string | null>(null);
  const id = useId();
  const data = organization.data;
  if (data === undefined) {
    return organization.error !== undefined ? (
      <LoadError error={organization.error} onRetry={organization.reload} />
    ) : null;
  }
  async function toggle(requireMfa: boolean) {
    setNote(null);
    const failed = await action.run(async () => {
      qc.setQueryData(K.organization, await client.org.updateOrganization({ requireMfa }));
    });
    if (failed === null) {
      setNote(
        requireMfa
          ? 'Every member now needs a second factor; a member without one can only add one until they do.'
          : 'A second factor is no longer required of every member.',
      );
    }
  }
  return (
    <section className="card" aria-labelledby={`${id}-title`} data-testid="organization-settings">
      <h2 id={`${id}-title`}>Organization</h2>
      {mayChange ? (
        <div className="field checkbox-field">
          <label>
            <input
              type="checkbox"
              checked={data.requireMfa}
              disabled={action.busy}
              onChange={(event) => void toggle(event.target.checked)}
              data-testid="require-mfa"
            />{' '}
            Require a second factor for every member
          </label>
          <p className="hint">
            A member without an authenticator app or a passkey can then do nothing but add one.
          </p>
        </div>
      ) : (
        <p data-testid="require-mfa-state">
          {data.requireMfa
            ? 'Every member must have a second factor.'
            : 'A second factor is recommended but not required of every member.'}
        </p>
      )}
      <ErrorMessage error={action.error} />
      <StatusNote text={note} />
    </section>
  );
}

function MemberTable({
  members,
  manage,
  onNote,
}: {
  members: ResourceState<MemberList>;
  manage: boolean;
  onNote: (note: string | null) => void;
}) {
  const { client, session } = useApp();
  const qc = useQueryClient();
  const [removing, setRemoving] = useState<Member | null>(null);
  const data = members.data;
  if (data === undefined) {
    return members.error !== undefined ? (
      <LoadError error={members.error} onRetry={members.reload} />
    ) : (
      <Loading />
    );
  }
  const put = (change: (items: Member[]) => Member[]) =>
    updateData<MemberList>(qc, K.members, (list) => ({ items: change(list.items) }));
  return (
    <>
      <div className="org-wrap">
        <table className="org-table" data-testid="member-list">
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Second factor</th>
              <th scope="col">Joined</th>
              {manage && (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {data.items.map((member) => (
              <MemberRow
                key={member.id}
                member={member}
                self={member.id === session.user.id}
                manage={manage}
                onChanged={(changed) => {
                  put((items) => items.map((item) => (item.id === changed.id ? changed : item)));
                  onNote(`${changed.email} is now ${ROLE_WORDS[changed.role].name.toLowerCase()}.`);
                  // Your own role may have changed: the controls follow.
                  if (changed.id === session.user.id) void qc.invalidateQueries({ queryKey: K.organization });
                }}
                onRemove={() => setRemoving(member)}
              />
            ))}
          </tbody>
        </table>
      </div>
      {removing !== null && (
        <RemoveMemberDialog
          member={removing}
          onClose={() => setRemoving(null)}
          onRemove={async (keepKeys) => {
            const removal = await client.org.removeMember(removing.id, keepKeys);
            put((items) => items.filter((item) => item.id !== removing.id));
            onNote(removalNote(removing.email, removal));
          }}
        />
      )}
    </>
  );
}

/**
 * "Remove a@b.co?": their sessions end, and so do the API keys and connected apps they made — an agent they set up
 * stops with them — unless the owner chooses to keep those working (off by default: a key they copied would go on).
 */
function RemoveMemberDialog({
  member,
  onClose,
  onRemove,
}: {
  member: Member;
  onClose: () => void;
  onRemove: (keepKeys: boolean) => Promise<void>;
}) {
  const [keepKeys, setKeepKeys] = useState(false);
  const hintId = useId();
  return (
    <ConfirmDialog
      title={`Remove ${member.email}?`}
      confirmLabel="Remove member"
      danger
      onClose={onClose}
      onConfirm={() => onRemove(keepKeys)}
    >
      <p>
        <span className="user-text">{member.email}</span> loses access at once: every session they have ends
        now.
      </p>
      <p>
        The API keys they created or rotated and the apps they connected stop working too, on every agent
        wallet, unless you keep them.
      </p>
      <div className="field checkbox-field">
        <label>
          <input
            type="checkbox"
            checked={keepKeys}
            onChange={(event) => setKeepKeys(event.target.checked)}
            aria-describedby={hintId}
            data-testid="keep-member-keys"
          />{' '}
          Keep their API keys and connected apps working
        </label>
        <p className="hint" id={hintId}>
          Only if an agent still needs them: whoever holds a copy of such a key can go on using it.
        </p>
      </div>
    </ConfirmDialog>
  );
}

function MemberRow({
  member,
  self,
  manage,
  onChanged,
  onRemove,
}: {
  member: Member;
  self: boolean;
  manage: boolean;
  onChanged: (member: Member) => void;
  onRemove: () => void;
}) {
  const { client } = useApp();
  const action = useAction();
  const selectId = useId();
  return (
    <tr data-testid="member-item" data-email={member.email} data-role={member.role}>
      <td className="user-text">
        {member.email}
        {self && <span className="hint"> (you)</span>}
      </td>
      <td>
        {manage ? (
          <>
            <label htmlFor={selectId} className="visually-hidden">
              Role of {member.email}
            </label>
            <select
              id={selectId}
              value={member.role}
              disabled={action.busy}
              data-testid="member-role"
              onChange={(event) => {
                const role = event.target.value;
                if (!isRole(role) || role === member.role) return;
                void action.run(async () => onChanged(await client.org.changeRole(member.id, role)));
              }}
            >
              {ROLES.map((role) => (
                <option key={role} value={role}>
                  {ROLE_WORDS[role].name}
                </option>
              ))}
            </select>
            <ErrorMessage error={action.error} />
          </>
        ) : (
          ROLE_WORDS[member.role].name
        )}
      </td>
      <td data-testid="member-mfa">{member.mfa ? 'Yes' : 'No'}</td>
      <td>{formatDateTime(member.joinedAt)}</td>
      {manage && (
        <td>
          {!self && (
            <button type="button" className="button secondary small" onClick={onRemove}>
              Remove<span className="visually-hidden"> {member.email}</span>
            </button>
          )}
        </td>
      )}
    </tr>
  );
}

/** An owner's invitations: invite by email and role, the link once, the open invitations with revoke. */
function Invitations() {
  const { client } = useApp();
  const qc = useQueryClient();
  const invitations = useResource<InvitationList>(
    K.invitations,
    () => client.org.invitations(),
    STALE.members,
  );
  const [shown, setShown] = useState<CreatedInvitation | null>(null);
  const [revoking, setRevoking] = useState<Invitation | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const put = (change: (items: Invitation[]) => Invitation[]) =>
    updateData<InvitationList>(qc, K.invitations, (list) => ({ items: change(list.items) }));
  const data = invitations.data;
  return (
    <section className="card" aria-labelledby="invitations-title">
      <h2 id="invitations-title">Invite a member</h2>
      <InviteForm
        onInvited={(created) => {
          const { token: _token, ...listed } = created;
          put((items) => [listed, ...items.filter((item) => item.id !== created.id)]);
          setShown(created);
        }}
      />
      <StatusNote text={note} />
      <h3>Open invitations{data !== undefined && data.items.length > 0 ? ` (${data.items.length})` : ''}</h3>
      {data === undefined ? (
        invitations.error !== undefined ? (
          <LoadError error={invitations.error} onRetry={invitations.reload} />
        ) : (
          <Loading />
        )
      ) : data.items.length === 0 ? (
        <p className="empty">No open invitations.</p>
      ) : (
        <ul className="rows" data-testid="invitation-list" aria-label="Open invitations">
          {data.items.map((invitation) => (
            <li key={invitation.id} className="row" data-testid="invitation-item">
              <span className="wallet-name user-text">{invitation.email}</span>
              <span className="row-meta">
                {ROLE_WORDS[invitation.role].name} · expires {formatDateTime(invitation.expiresAt)}
              </span>
              <button
                type="button"
                className="button secondary small"
                onClick={() => setRevoking(invitation)}
              >
                Revoke<span className="visually-hidden"> the invitation of {invitation.email}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {shown !== null && <InvitationShownOnce created={shown} onClose={() => setShown(null)} />}
      {revoking !== null && (
        <ConfirmDialog
          title={`Revoke the invitation of ${revoking.email}?`}
          confirmLabel="Revoke invitation"
          onClose={() => setRevoking(null)}
          onConfirm={async () => {
            await client.org.revokeInvitation(revoking.id);
            put((items) => items.filter((item) => item.id !== revoking.id));
            setNote(`The invitation of ${revoking.email} is revoked; its link no longer works.`);
          }}
        >
          <p>Its link stops working at once. You can invite the same address again later.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function InviteForm({ onInvited }: { onInvited: (created: CreatedInvitation) => void }) {
  const { client } = useApp();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [submitted, setSubmitted] = useState(false);
  const action = useAction();
  const emailRef = useRef<HTMLInputElement>(null);
  const roleId = useId();
  const problem = emailError(email);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (problem !== null) return emailRef.current?.focus();
    const failed = await action.run(async () => onInvited(await client.org.invite(email.trim(), role)));
    if (failed === null) {
      setEmail('');
      setSubmitted(false);
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate className="stack-form" aria-label="Invite a member">
      <TextField
        label="Email"
        type="email"
        autoComplete="off"
        value={email}
        onChange={setEmail}
        inputRef={emailRef}
        error={submitted ? problem : null}
        name="invite-email"
      />
      <div className="field">
        <label htmlFor={roleId}>Role</label>
        <select
          id={roleId}
          value={role}
          onChange={(event) => isRole(event.target.value) && setRole(event.target.value)}
          data-testid="invite-role"
          aria-describedby={`${roleId}-hint`}
        >
          {ROLES.map((value) => (
            <option key={value} value={value}>
              {ROLE_WORDS[value].name}
            </option>
          ))}
        </select>
        <p className="hint" id={`${roleId}-hint`}>
          {ROLE_WORDS[role].name}: {ROLE_WORDS[role].does}.
        </p>
      </div>
      <ErrorMessage error={action.error} />
      <button type="submit" className="button primary" disabled={action.busy}>
        {action.busy ? 'Inviting…' : 'Invite'}
      </button>
    </form>
  );
}

/** The invitation link, once: its token is never shown again (only a hash of it is kept). */
function InvitationShownOnce({ created, onClose }: { created: CreatedInvitation; onClose: () => void }) {
  const warningId = useId();
  const inputId = useId();
  const link = invitationLink(location.origin, created.token, created.email);
  return (
    <Dialog
      title="Send this invitation link"
      onClose={onClose}
      describedBy={warningId}
      className="key-dialog"
    >
      <p className="warning" id={warningId} data-testid="invitation-warning">
        <strong>This link is shown only once.</strong> Send it to {created.email} yourself; it lets them join
        as {ROLE_WORDS[created.role].name.toLowerCase()} with that email address until{' '}
        {formatDateTime(created.expiresAt)}, once.
      </p>
      <div className="field">
        <label htmlFor={inputId}>Invitation link for {created.email}</label>
        <div className="key-value">
          <input
            id={inputId}
            className="secret"
            readOnly
            value={link}
            data-testid="invitation-link"
            onFocus={(event) => event.target.select()}
            spellCheck={false}
            autoComplete="off"
          />
          <CopyButton text={link} label="Copy invitation link" autoFocus />
        </div>
      </div>
      <div className="dialog-actions">
        <button type="button" className="button primary" onClick={onClose}>
          Done
        </button>
      </div>
    </Dialog>
  );
}

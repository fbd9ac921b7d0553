// The organization's audit log (contract section 9): every member's change and what agents and the service did
// to payments, newest first, a page at a time, filtered by wallet and by who acted. People are shown by email,
// agents by their API key's label: never an id.
import { useId, useState } from 'react';
import type { AuditEntry } from '../api/organization.ts';
import { FULL_LIST_LIMIT } from '../api/wire.ts';
import { useApp } from '../app-context.ts';
import { LoadError, Loading } from '../components/Common.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { Pagination } from '../components/Pagination.tsx';
import { formatDateTime, formatRelative, walletName } from '../format.ts';
import { AUDIT_PAGE_SIZE, K, STALE, useAgentWallets, useResource } from '../queries.ts';
import { describeAuditAction, describeAuditActor } from './auditWords.ts';

/** The "who" filter: a member, or an API key of the chosen wallet (an agent acts with a key of one wallet). */
function ActorSelect(props: {
  actor: string;
  onChange: (actor: string) => void;
  members: ReadonlyArray<{ id: string; email: string }> | undefined;
  keys: ReadonlyArray<{ id: string; label: string }>;
  selfId: string;
}) {
  const fieldId = useId();
  return (
    <div className="field">
      <label htmlFor={fieldId}>Who</label>
      <select
        id={fieldId}
        value={props.actor}
        data-testid="audit-actor"
        onChange={(event) => props.onChange(event.target.value)}
      >
        <option value="">Anyone</option>
        <optgroup label="Members">
          {(props.members ?? []).map((member) => (
            <option key={member.id} value={member.id}>
              {member.id === props.selfId ? `${member.email} (you)` : member.email}
            </option>
          ))}
        </optgroup>
        {props.keys.length > 0 && (
          <optgroup label="API keys of this wallet">
            {props.keys.map((key) => (
              <option key={key.id} value={key.id}>
                {key.label}
              </option>
            ))}
          </optgroup>
        )}
      </select>
    </div>
  );
}

export function AuditLogView() {
  const { client, session, sdk } = useApp();
  const [page, setPage] = useState(1);
  const [walletId, setWalletId] = useState('');
  const [actor, setActor] = useState('');
  const wallets = useAgentWallets();
  const members = useResource(K.members, () => client.org.members(), STALE.members);
  // An agent acts with a key of one wallet: the keys of the chosen wallet join the "who" filter.
  const keys = useResource(
    walletId === '' ? null : K.keys(walletId),
    () => sdk.keys.list(walletId, { limit: FULL_LIST_LIMIT }),
    STALE.details,
  );
  const log = useResource(
    K.audit(page, walletId, actor),
    () =>
      client.org.audit(page, AUDIT_PAGE_SIZE, {
        ...(walletId === '' ? {} : { walletId }),
        ...(actor === '' ? {} : { actor }),
      }),
    STALE.audit,
  );
  const walletNames = new Map((wallets.data?.items ?? []).map((w) => [w.id, walletName(w.label)]));
  const walletFieldId = useId();
  const data = log.data;

  return (
    <>
      <PageHeading title="Audit log">Audit log</PageHeading>
      <p className="lead">
        Every change a member made and everything agents and the service did to payments, newest first.
      </p>
      <section className="card" aria-labelledby="audit-title">
        <h2 id="audit-title" className="visually-hidden">
          Entries
        </h2>
        <search className="audit-filters" aria-label="Filter the audit log">
          <div className="field">
            <label htmlFor={walletFieldId}>Wallet</label>
            <select
              id={walletFieldId}
              value={walletId}
              data-testid="audit-wallet"
              onChange={(event) => {
                setWalletId(event.target.value);
                // A key belongs to one wallet: a key chosen for another no longer fits.
                if (!isMember(actor, members.data?.items)) setActor('');
                setPage(1);
              }}
            >
              <option value="">All wallets</option>
              {(wallets.data?.items ?? []).map((wallet) => (
                <option key={wallet.id} value={wallet.id}>
                  {walletName(wallet.label)}
                </option>
              ))}
            </select>
          </div>
          <ActorSelect
            actor={actor}
            onChange={(value) => {
              setActor(value);
              setPage(1);
            }}
            members={members.data?.items}
            keys={walletId === '' ? [] : (keys.data?.items ?? [])}
            selfId={session.user.id}
          />
        </search>
        {data === undefined ? (
          log.error !== undefined ? (
            <LoadError error={log.error} onRetry={log.reload} />
          ) : (
            <Loading />
          )
        ) : data.items.length === 0 ? (
          <p className="empty">Nothing recorded{walletId !== '' || actor !== '' ? ' that fits' : ' yet'}.</p>
        ) : (
          <div className="org-wrap">
            <table className="org-table" data-testid="audit-list">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">What</th>
                  <th scope="col">On</th>
                </tr>
              </thead>
              <tbody>
                {data.items.map((entry) => (
                  <AuditRow key={entry.id} entry={entry} selfId={session.user.id} walletNames={walletNames} />
                ))}
              </tbody>
            </table>
          </div>
        )}
        {data !== undefined && (
          <Pagination
            page={data.page}
            limit={data.limit}
            total={data.total}
            onPage={setPage}
            label="Audit log pages"
          />
        )}
      </section>
    </>
  );
}

function isMember(id: string, members: { id: string }[] | undefined): boolean {
  return id === '' || (members ?? []).some((member) => member.id === id);
}

function AuditRow({
  entry,
  selfId,
  walletNames,
}: {
  entry: AuditEntry;
  selfId: string;
  walletNames: ReadonlyMap<string, string>;
}) {
  const wallet = entry.walletId === null ? null : (walletNames.get(entry.walletId) ?? 'a wallet');
  return (
    <tr data-testid="audit-item" data-actor-type={entry.actor.type} data-action={entry.action}>
      <td className="tx-time">
        <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
        <span className="hint">{formatRelative(entry.at)}</span>
      </td>
      <td className="user-text" data-testid="audit-actor-label">
        {describeAuditActor(entry.actor, selfId)}
      </td>
      <td data-testid="audit-action">
        {describeAuditAction(entry.action)}
        {entry.outcome === 'unknown' && (
          <span
            className="hint"
            data-testid="audit-outcome-unknown"
            title="Recorded before it ran; the service stopped before recording its outcome (or it is running now)"
          >
            {' '}
            (outcome unknown)
          </span>
        )}
      </td>
      <td>
        {wallet !== null && <span className="user-text">{wallet}</span>}
        {entry.target !== null && entry.target !== entry.walletId && (
          <>
            {wallet !== null && ' · '}
            <code className="small-code">{entry.target}</code>
          </>
        )}
        {wallet === null && entry.target === null && '—'}
      </td>
    </tr>
  );
}

// Where the account is logged in: end one session, or every other one.
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { SessionInfo } from '../../api/custody.ts';
import { useApp } from '../../app-context.ts';
import { LoadError, Loading, StatusNote } from '../../components/Common.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { StatusTag } from '../../components/StatusTag.tsx';
import { formatDateTime, formatRelative, plural } from '../../format.ts';
import { K, STALE, updateData, useAction, useResource } from '../../queries.ts';
import { describeUserAgent } from '../security.ts';

export function SessionsCard() {
  const { client } = useApp();
  const qc = useQueryClient();
  const sessions = useResource(K.sessions, () => client.custody.sessions(), STALE.security);
  const [endingOthers, setEndingOthers] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const end = useAction();
  const [ending, setEnding] = useState<string | null>(null);

  function remove(ids: (item: SessionInfo) => boolean) {
    updateData<{ items: SessionInfo[] }>(qc, K.sessions, (data) => ({
      items: data.items.filter((item) => !ids(item)),
    }));
  }

  async function onEnd(session: SessionInfo) {
    setNote(null);
    setEnding(session.id);
    const error = await end.run(async () => {
      await client.custody.endSession(session.id);
      remove((item) => item.id === session.id);
    });
    setEnding(null);
    if (error === null) setNote(`The session on ${describeUserAgent(session.userAgent)} is logged out.`);
  }

  const data = sessions.data;
  const others = data?.items.filter((item) => !item.current).length ?? 0;
  return (
    <section className="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Where you are logged in</h2>
      {data === undefined ? (
        sessions.error !== undefined ? (
          <LoadError error={sessions.error} onRetry={sessions.reload} />
        ) : (
          <Loading />
        )
      ) : (
        <ul className="rows" aria-label="Sessions" data-testid="sessions">
          {data.items.map((session) => (
            <SessionRow
              key={session.id}
              session={session}
              ending={ending === session.id}
              onEnd={() => void onEnd(session)}
            />
          ))}
        </ul>
      )}
      <ErrorMessage error={end.error} />
      {others > 0 && (
        <div className="actions">
          <button type="button" className="button secondary" onClick={() => setEndingOthers(true)}>
            Log out everywhere else
          </button>
        </div>
      )}
      <StatusNote text={note} />
      {endingOthers && (
        <ConfirmDialog
          title="Log out everywhere else?"
          confirmLabel="Log out other sessions"
          onConfirm={async () => {
            const { ended } = await client.custody.endOtherSessions();
            remove((item) => !item.current);
            setNote(`${plural(ended, 'other session')} logged out. This one stays.`);
          }}
          onClose={() => setEndingOthers(false)}
        >
          <p>
            Every other browser and device logged in to this account is logged out at once (
            {plural(others, 'session')}
            ). This one stays.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** One session: the device, where from, when; "End" for every session but this one. */
function SessionRow({
  session,
  ending,
  onEnd,
}: {
  session: SessionInfo;
  ending: boolean;
  onEnd: () => void;
}) {
  const device = describeUserAgent(session.userAgent);
  return (
    <li className="row session" data-testid="session">
      <span className="wallet-name" title={session.userAgent ?? undefined}>
        {device}
      </span>
      {session.current && <StatusTag status="active" label="this session" />}
      <span className="row-meta">
        IP {session.ip ?? 'unknown'} · logged in {formatDateTime(session.createdAt)} · last used{' '}
        {session.lastUsedAt === null ? 'not yet' : formatRelative(session.lastUsedAt)}
      </span>
      {!session.current && (
        <button type="button" className="button secondary small" onClick={onEnd} disabled={ending}>
          {ending ? 'Ending…' : 'End'}
          <span className="visually-hidden">
            {' '}
            the session on {device} from {session.ip ?? 'an unknown address'}
          </span>
        </button>
      )}
    </li>
  );
}

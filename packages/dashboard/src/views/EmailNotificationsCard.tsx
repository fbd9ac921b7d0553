// "Email notifications" on the Security page: the member's own choice of the email they receive, one checkbox
// per kind their role gets, saved as soon as it is ticked.
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { EmailKind, NotificationSettings } from '../api/custody.ts';
import { useApp } from '../app-context.ts';
import { LoadError, Loading, StatusNote } from '../components/Common.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { STALE, useAction, useResource } from '../queries.ts';
import { emailChoices, emailNotice } from './notifications.ts';

const KEY = ['notifications'] as const;

export function EmailNotificationsCard() {
  const { client } = useApp();
  const qc = useQueryClient();
  const settings = useResource<NotificationSettings>(
    KEY,
    () => client.custody.notifications(),
    STALE.security,
  );
  const action = useAction();
  const [note, setNote] = useState<string | null>(null);

  async function choose(kind: EmailKind, on: boolean) {
    setNote(null);
    const error = await action.run(async () => {
      const saved = await client.custody.updateNotifications({ [kind]: on });
      qc.setQueryData(KEY, saved);
    });
    if (error === null)
      setNote(on ? 'Saved: you will get this email.' : 'Saved: you will not get this email.');
  }

  const data = settings.data;
  return (
    <section className="card" aria-labelledby="email-notifications-title">
      <h2 id="email-notifications-title">Email notifications</h2>
      {data === undefined ? (
        settings.error !== undefined ? (
          <LoadError error={settings.error} onRetry={settings.reload} />
        ) : (
          <Loading />
        )
      ) : (
        <>
          {emailNotice(data) !== null && <p>{emailNotice(data)}</p>}
          {data.emailKindsForRole.length > 0 && (
            <fieldset className="field" disabled={action.busy}>
              <legend>Email me when</legend>
              <ul className="event-choices" aria-label="Email notifications">
                {emailChoices(data).map((choice) => (
                  <li key={choice.kind}>
                    <label className="checkbox">
                      <input
                        type="checkbox"
                        checked={choice.on}
                        onChange={(event) => void choose(choice.kind, event.target.checked)}
                      />
                      <span>{choice.words}</span>
                    </label>
                  </li>
                ))}
              </ul>
            </fieldset>
          )}
          {action.error !== null && <ErrorMessage error={action.error} />}
          <StatusNote text={note} />
        </>
      )}
    </section>
  );
}

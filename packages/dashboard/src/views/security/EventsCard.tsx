// Recent security events, a page at a time.
import { useState } from 'react';
import type { SecurityEventPage } from '../../api/custody.ts';
import { useApp } from '../../app-context.ts';
import { PagedRows } from '../../components/PagedRows.tsx';
import { formatDateTime } from '../../format.ts';
import { K, SECURITY_EVENTS_PAGE_SIZE, STALE, useResource } from '../../queries.ts';
import { describeSecurityEvent, describeUserAgent } from '../security.ts';

export function EventsCard() {
  const { client } = useApp();
  const [page, setPage] = useState(1);
  const events = useResource<SecurityEventPage>(
    K.securityEvents(page),
    () => client.custody.securityEvents(page, SECURITY_EVENTS_PAGE_SIZE),
    STALE.security,
  );
  return (
    <section className="card" aria-labelledby="events-title">
      <h2 id="events-title">Recent security events</h2>
      <PagedRows
        resource={events}
        page={page}
        limit={SECURITY_EVENTS_PAGE_SIZE}
        onPage={setPage}
        empty="Nothing yet: a new factor, a removed one or a password change shows here."
        label="Security events"
        testId="security-events"
        pagesLabel="Security event pages"
        row={(event) => (
          <>
            <span className="user-text">{describeSecurityEvent(event)}</span>
            <span className="row-meta">
              {formatDateTime(event.createdAt)} · {describeUserAgent(event.userAgent)}
              {event.ip !== null ? ` · IP ${event.ip}` : ''}
            </span>
          </>
        )}
      />
    </section>
  );
}

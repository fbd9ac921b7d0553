// Recent security events, a page at a time.
import { useState } from 'react';
import type { SecurityEventPage } from '../../api/custody.ts';
import { useApp } from '../../app-context.ts';
import { LoadError, Loading } from '../../components/Common.tsx';
import { Pagination } from '../../components/Pagination.tsx';
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
  const data = events.data;
  return (
    <section className="card" aria-labelledby="events-title">
      <h2 id="events-title">Recent security events</h2>
      {data === undefined ? (
        events.error !== undefined ? (
          <LoadError error={events.error} onRetry={events.reload} />
        ) : (
          <Loading />
        )
      ) : data.items.length === 0 ? (
        <p className="empty">Nothing yet: a new factor, a removed one or a password change shows here.</p>
      ) : (
        <ul className="rows" aria-label="Security events" data-testid="security-events">
          {data.items.map((event) => (
            <li key={event.id} className="row">
              <span className="user-text">{describeSecurityEvent(event)}</span>
              <span className="row-meta">
                {formatDateTime(event.createdAt)} · {describeUserAgent(event.userAgent)}
                {event.ip !== null ? ` · IP ${event.ip}` : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
      {data !== undefined && (
        <Pagination
          page={page}
          limit={SECURITY_EVENTS_PAGE_SIZE}
          total={data.total}
          onPage={setPage}
          label="Security event pages"
        />
      )}
    </section>
  );
}

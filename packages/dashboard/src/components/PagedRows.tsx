// A list loaded a page at a time: loading, its error with a retry, a line when empty, the rows, the pages.
import type { ReactNode } from 'react';
import type { ResourceState } from '../queries.ts';
import { LoadError, Loading } from './Common.tsx';
import { Pagination } from './Pagination.tsx';

export function PagedRows<T extends { id: string }>(props: {
  resource: ResourceState<{ items: T[]; total: number }>;
  page: number;
  limit: number;
  onPage: (page: number) => void;
  /** What an empty list says. */
  empty: string;
  /** The list's accessible name, if it needs one, and its test id. */
  label?: string;
  testId: string;
  pagesLabel: string;
  row: (item: T) => ReactNode;
}) {
  const { data, error, reload } = props.resource;
  if (data === undefined)
    return error !== undefined ? <LoadError error={error} onRetry={reload} /> : <Loading />;
  return (
    <>
      {data.items.length === 0 ? (
        <p className="empty">{props.empty}</p>
      ) : (
        <ul className="rows" aria-label={props.label} data-testid={props.testId}>
          {data.items.map((item) => (
            <li key={item.id} className="row">
              {props.row(item)}
            </li>
          ))}
        </ul>
      )}
      <Pagination
        page={props.page}
        limit={props.limit}
        total={data.total}
        onPage={props.onPage}
        label={props.pagesLabel}
      />
    </>
  );
}

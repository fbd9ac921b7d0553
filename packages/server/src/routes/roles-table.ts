// The table of roles in docs/owners/organizations.md (contract section 9), made from the routes themselves so it cannot
// drift: test/roles-table.test.ts fails when the page's copy differs (UPDATE_DOCS=1 rewrites it).
import { rolesAllowed } from '../domain/organizations/roles.ts';
import { ROUTE_TABLE } from './index.ts';

export const ROLES_TABLE_START = '<!-- roles:start -->';
export const ROLES_TABLE_END = '<!-- roles:end -->';

/** One Markdown row per session route: method, path, the roles allowed, step-up. */
export function rolesTable(): string {
  const rows = Object.entries(ROUTE_TABLE).flatMap(([operationId, route]) => {
    if (route.role === undefined) return [];
    const path = route.url.replace('/api/v1', '');
    const rule = route.stepUp === undefined ? '' : route.stepUp === 'always' ? 'always' : 'with a factor';
    const stepUp = route.stepUpWhen === undefined || rule === '' ? rule : `${rule}, for some requests`;
    return [
      `| ${route.method} | \`${path}\` | ${operationId} | ${rolesAllowed(route.role).join(', ')} | ${stepUp} |`,
    ];
  });
  return ['| Method | Path | Operation | Roles allowed | Step-up |', '|---|---|---|---|---|', ...rows].join(
    '\n',
  );
}

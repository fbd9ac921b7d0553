import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { idSchema, paginated, paginationQuery } from '../../http/schemas.ts';
import { timestamp } from '../../http/views.ts';
import { AUDIT_CURSOR_PATTERN, decodeAuditCursor } from '../../services/organizations/audit-log.ts';

const instant = z.iso.datetime({ offset: true }).describe('an ISO 8601 date-time');

const auditView = z.object({
  id: z.string(),
  at: timestamp,
  actor: z.object({
    type: z.enum(['member', 'agent', 'system']),
    id: z.string().describe("a member's id, an API key's id, or what acted for the service (system, chain)"),
    label: z.string().nullable().describe("the member's email or the key's label"),
  }),
  outcome: z
    .enum(['completed', 'unknown'])
    .describe(
      'completed, or unknown: the write began (its line is written before it runs) and its outcome was never recorded — the service stopped in between — or it is running now',
    ),
  action: z
    .string()
    .describe(
      'the operation (its OpenAPI operationId, e.g. createPolicy) or transaction.<status> for a payment',
    ),
  target: z.string().nullable(),
  walletId: z.string().nullable(),
  before: z.unknown(),
  after: z.unknown().describe('the answer of the write, without secrets'),
});

export default defineRoute({
  method: 'GET',
  url: '/api/v1/audit',
  auth: 'user',
  role: 'viewer',
  summary: "The organization's audit log",
  description:
    "Every member's write (REST) and what agents and the service did to transactions, newest first. Filters: " +
    'walletId, actor (a member or key id), from/to (inclusive). Page by `page`, or by `cursor` (the previous ' +
    "page's `nextCursor`) for a long log. Each member's line is written before the write runs and numbered in " +
    'a hash chain that `agent-wallet verify-audit` checks.',
  tags: ['organization'],
  query: paginationQuery.extend({
    walletId: idSchema.optional(),
    actor: idSchema.optional(),
    from: instant.optional(),
    to: instant.optional(),
    cursor: z
      .string()
      .regex(AUDIT_CURSOR_PATTERN)
      .optional()
      .describe("the previous page's nextCursor: the page after it, read by key (page is then ignored)"),
  }),
  response: paginated(auditView).extend({
    nextCursor: z
      .string()
      .nullable()
      .describe('pass as cursor for the next page, read by key however long the log; null on the last page'),
  }),
  handler: async ({ request, query, services }) => {
    const caller = currentUser(request);
    const filter = {
      walletId: query.walletId,
      actor: query.actor,
      fromMs: query.from === undefined ? undefined : Date.parse(query.from),
      toMs: query.to === undefined ? undefined : Date.parse(query.to),
    };
    const cursor = query.cursor === undefined ? null : decodeAuditCursor(query.cursor);
    return { data: await services.audit.list(caller, filter, { ...query, cursor }) };
  },
});

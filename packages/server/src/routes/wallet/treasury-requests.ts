import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { paginated, paginationQuery } from '../../http/schemas.ts';
import { amount, timestamp } from '../../http/views.ts';
import { listSignatureRequests } from '../../services/rail/treasury-state.ts';
import { signRequestView } from './withdrawal-schemas.ts';

/** A place in the list: the last row's creation (ms) and id, `<ms>.<id>`, as nextCursor gives it. */
const CURSOR_PATTERN = /^([0-9]{1,16})\.([A-Za-z0-9_]{1,64})$/;

const requestStatus = z.enum(['awaiting_signatures', 'submitted', 'completed', 'failed']);

const ownersRequestView = z.object({
  id: z
    .string()
    .describe('the withdrawal it pays (what POST /wallet/treasury/signatures takes), or the request'),
  kind: z
    .enum(['transfer', 'revoke', 'owners'])
    .describe('a transfer out of the account, a revocation of the allowance, or a change of the owners'),
  status: requestStatus,
  amount: amount.nullable().describe('a transfer’s amount; null otherwise'),
  toAddress: z.string().nullable().describe('a transfer’s recipient, EIP-55; null otherwise'),
  change: z
    .object({
      owners: z.array(z.string()).describe('every owner after the change, EIP-55'),
      threshold: z.number().int().describe('how many of them must sign after the change'),
    })
    .nullable()
    .describe('a change of the owners: what the account holds once it is done; null otherwise'),
  signRequest: signRequestView,
  signaturesNeeded: z.number().int().describe('owners’ signatures still needed'),
  signedBy: z.array(z.string()).describe('the owners who have signed, EIP-55'),
  createdAt: timestamp,
  expiresAt: timestamp
    .nullable()
    .describe('when a waiting withdrawal fails unsigned (its money back); null once it no longer waits'),
});

export default defineRoute({
  method: 'GET',
  url: '/api/v1/wallet/treasury/signatures',
  auth: 'user',
  role: 'viewer',
  summary: 'What waits for the owners’ signatures, and what they signed lately',
  description:
    'Bounded treasury only (TREASURY_MODE=bounded; 404 elsewhere). The requests of the owners’ account this ' +
    'organization sees — its withdrawals the allowance could not cover, and the treasury’s own (a revocation of ' +
    'the service’s allowance, a change of the owners) — newest first, each with the `signRequest` every owner signs with ' +
    'eth_signTypedData_v4, the signatures still needed and who signed. `status=awaiting_signatures` keeps what ' +
    'still waits. Page by `page`, or by `cursor` (the previous page’s `nextCursor`). Any member may read it; ' +
    'only an owner hands a signature in.',
  tags: ['wallet'],
  query: paginationQuery.extend({
    status: requestStatus.optional().describe('only the requests in this status'),
    cursor: z
      .string()
      .regex(CURSOR_PATTERN)
      .optional()
      .describe("the previous page's nextCursor: the page after it, read by key (page is then ignored)"),
  }),
  response: paginated(ownersRequestView).extend({
    nextCursor: z.string().nullable().describe('pass as cursor for the next page; null on the last page'),
  }),
  handler: async ({ request, query, services }) => {
    const { tenantId } = currentUser(request);
    const place = query.cursor === undefined ? null : CURSOR_PATTERN.exec(query.cursor);
    const cursor = place === null ? null : { atMs: BigInt(place[1]!), id: place[2]! };
    return { data: await listSignatureRequests(services, tenantId, { ...query, cursor }) };
  },
});

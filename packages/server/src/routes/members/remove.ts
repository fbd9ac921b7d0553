import { z } from 'zod';
import { currentUser, requestMeta } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import type { MadeKey } from '../../services/keys/keys.ts';
import { madeConnectionView, madeKeyView, memberParams } from './schemas.ts';

const keysOf = (made: readonly MadeKey[]) =>
  made.filter((k) => k.type === 'api_key').map((k) => ({ id: k.id, label: k.label, walletId: k.walletId }));
const connectionsOf = (made: readonly MadeKey[]) =>
  made
    .filter((k) => k.type === 'oauth')
    .map((k) => ({ id: k.id, clientName: k.label, walletId: k.walletId }));

export default defineRoute({
  method: 'DELETE',
  url: '/api/v1/members/:id',
  auth: 'user',
  role: 'owner',
  stepUp: 'always',
  summary: 'Remove a member',
  description:
    'Their sessions end at once, on every instance; they can no longer log in. The API keys they created or ' +
    'rotated and the OAuth connections they allowed (with authorization codes no client redeemed yet) end with ' +
    'them, refused from this answer on by every instance, and are listed in `revokedKeys` / `revokedOAuth`; ' +
    '`?keepKeys=true` keeps them working instead (listed in `keptKeys` / `keptOAuth`). Every owner and the ' +
    'removed member hear of it (`security.member_removed`: a webhook event and email). Answers `{id, deleted: ' +
    'true}` (and `removed: true`, as before). The last owner cannot be removed (409 INVALID_STATE).',
  tags: ['members'],
  params: memberParams,
  query: z.strictObject({
    keepKeys: z
      .enum(['true', 'false'])
      .optional()
      .transform((value) => value === 'true')
      .describe('`true`: the keys and OAuth connections the member made keep working (default `false`)'),
  }),
  response: z.object({
    id: z.string(),
    deleted: z.literal(true),
    removed: z.literal(true),
    revokedKeys: z.array(madeKeyView).describe('API keys the member made, ended now'),
    revokedOAuth: z.array(madeConnectionView).describe('OAuth connections the member allowed, ended now'),
    keptKeys: z
      .array(madeKeyView)
      .describe('with keepKeys=true: the API keys the member made, still working'),
    keptOAuth: z
      .array(madeConnectionView)
      .describe('with keepKeys=true: the OAuth connections the member allowed, still working'),
  }),
  handler: async ({ request, params, query, services }) => {
    const removal = await services.organizations.remove(currentUser(request), params.id, {
      keepKeys: query.keepKeys,
      meta: requestMeta(request),
    });
    const { member } = removal;
    return {
      data: {
        id: member.id,
        deleted: true as const,
        removed: true as const,
        revokedKeys: keysOf(removal.ended),
        revokedOAuth: connectionsOf(removal.ended),
        keptKeys: keysOf(removal.kept),
        keptOAuth: connectionsOf(removal.kept),
      },
      audit: { before: { email: member.email, role: member.role } },
    };
  },
});

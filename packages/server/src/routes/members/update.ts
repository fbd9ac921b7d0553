import { z } from 'zod';
import { currentUser, requestMeta } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { memberParams, memberView, roleSchema } from './schemas.ts';

export default defineRoute({
  method: 'PATCH',
  url: '/api/v1/members/:id',
  auth: 'user',
  role: 'owner',
  stepUp: 'always',
  summary: "Change a member's role",
  description:
    'Takes effect on their next request, on every instance. Every owner and the member hear of it ' +
    '(`security.member_role_changed`: a webhook event and email). The last owner cannot be demoted (409 ' +
    'INVALID_STATE).',
  tags: ['members'],
  params: memberParams,
  body: z.strictObject({ role: roleSchema }),
  response: memberView,
  handler: async ({ request, params, body, services }) => {
    const { before, member } = await services.organizations.changeRole(
      currentUser(request),
      params.id,
      body.role,
      requestMeta(request),
    );
    return { data: member, audit: { before: { role: before }, after: { role: member.role } } };
  },
});

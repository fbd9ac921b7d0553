import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { roleSchema } from '../members/schemas.ts';
import { userView } from '../views.ts';

/** The user, and what they are in their organization (contract section 9): a page needs the role to offer only what it allows. */
const meView = userView.extend({
  organizationId: z.string(),
  role: roleSchema,
});

export default defineRoute({
  method: 'GET',
  url: '/api/v1/auth/me',
  auth: 'user',
  role: 'viewer',
  mfaEnrolment: true,
  summary: 'The current user',
  description: 'The user, their organization and their role in it (owner, admin, approver or viewer).',
  tags: ['auth'],
  response: z.object({ user: meView }),
  handler: async ({ request, services }) => {
    const caller = currentUser(request);
    const user = await services.auth.me(caller.userId);
    return { data: { user: { ...user, organizationId: caller.organizationId, role: caller.role } } };
  },
});

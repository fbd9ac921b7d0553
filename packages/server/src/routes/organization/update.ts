import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { organizationView } from './schemas.ts';

export default defineRoute({
  method: 'PATCH',
  url: '/api/v1/organization',
  auth: 'user',
  role: 'owner',
  stepUp: 'withFactor',
  summary: "Change the organization's settings",
  description:
    'requireMfa: true — a member without a second factor can then only enrol one (other routes answer 403 ' +
    'MFA_ENROLLMENT_REQUIRED), from their next request on.',
  tags: ['organization'],
  body: z.strictObject({ requireMfa: z.boolean() }),
  response: organizationView,
  handler: async ({ request, body, services }) => {
    const caller = currentUser(request);
    const before = await services.organizations.get(caller);
    const after = await services.organizations.update(caller, body);
    return {
      data: after,
      audit: { before: { requireMfa: before.requireMfa }, after: { requireMfa: after.requireMfa } },
    };
  },
});

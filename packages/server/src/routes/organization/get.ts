import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { organizationView } from './schemas.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/organization',
  auth: 'user',
  role: 'viewer',
  mfaEnrolment: true,
  summary: "The caller's organization",
  tags: ['organization'],
  response: organizationView,
  handler: async ({ request, services }) => ({
    data: await services.organizations.get(currentUser(request)),
  }),
});

import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { emailSchema } from '../../http/schemas.ts';
import { invitationView, roleSchema } from './schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/members/invitations',
  auth: 'user',
  role: 'owner',
  stepUp: 'withFactor',
  summary: 'Invite a member',
  description:
    'Returns a single-use `token`, shown here and nowhere else, valid 7 days: `POST /auth/signup {email, password, ' +
    'invitationToken}` with the same email joins the organization with this role. An email that already has a ' +
    'login is refused (409 EMAIL_TAKEN): one organization per login.',
  tags: ['members'],
  body: z.strictObject({ email: emailSchema, role: roleSchema }),
  response: invitationView.extend({ token: z.string().describe('shown once') }),
  successStatus: 201,
  handler: async ({ request, body, services }) => ({
    data: await services.organizations.invite(currentUser(request), body),
  }),
});

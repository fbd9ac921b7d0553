import { z } from 'zod';
import { currentUser, requestMeta } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { emailSchema } from '../../http/schemas.ts';
import { invitationView, roleSchema } from './schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/members/invitations',
  auth: 'user',
  role: 'owner',
  // An owner or admin can take the organization over: always. Any other invitation: with a factor.
  stepUp: 'always',
  stepUpWhen: async ({ body }) => (body.role === 'owner' || body.role === 'admin' ? 'always' : 'withFactor'),
  summary: 'Invite a member',
  description:
    'Returns a single-use `token`, shown here and nowhere else, valid 7 days: `POST /auth/signup {email, password, ' +
    'invitationToken}` with the same email joins the organization with this role. Every email gets the same ' +
    'answer, whether or not it already has a login, so an invitation reveals no account; one organization per ' +
    'login, so an email that has one meets 409 EMAIL_TAKEN when it signs up with the token. Every owner hears of ' +
    'an invitation as owner or admin (`security.member_invited`: a webhook event and email). Step-up: always to ' +
    'invite an owner or admin; for another role, when the caller has a second factor.',
  tags: ['members'],
  body: z.strictObject({ email: emailSchema, role: roleSchema }),
  response: invitationView.extend({ token: z.string().describe('shown once') }),
  successStatus: 201,
  handler: async ({ request, body, services }) => ({
    data: await services.organizations.invite(currentUser(request), body, requestMeta(request)),
  }),
});

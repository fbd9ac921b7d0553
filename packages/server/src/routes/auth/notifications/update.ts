import { currentUser } from '../../../http/auth-hooks.ts';
import { defineRoute } from '../../../http/route.ts';
import { notificationSettingsChange, notificationSettingsView } from './schemas.ts';

export default defineRoute({
  method: 'PATCH',
  url: '/api/v1/auth/notifications',
  auth: 'user',
  role: 'viewer',
  // Turning an alarm off (a stolen session hiding what it does next) needs presence proven recently, with or
  // without a second factor; turning one on needs nothing.
  stepUp: 'always',
  stepUpWhen: async ({ body }) => (Object.values(body.email).includes(false) ? 'always' : null),
  summary: 'Choose the email the caller receives',
  description:
    'Turns kinds of email on or off for the caller only. A kind the caller’s role does not receive may be ' +
    'chosen too: it applies if the role changes. Turning a kind off needs a recent step-up.',
  tags: ['auth'],
  body: notificationSettingsChange,
  response: notificationSettingsView,
  handler: async ({ request, body, services }) => {
    const { userId, role } = currentUser(request);
    const before = await services.notifications.get({ userId, role });
    const after = await services.notifications.update({ userId, role }, body.email);
    return { data: after, audit: { before: before.email, after: after.email } };
  },
});

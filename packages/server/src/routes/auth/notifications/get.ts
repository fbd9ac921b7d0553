import { currentUser } from '../../../http/auth-hooks.ts';
import { defineRoute } from '../../../http/route.ts';
import { notificationSettingsView } from './schemas.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/auth/notifications',
  auth: 'user',
  role: 'viewer',
  summary: 'The email the caller receives',
  description:
    'Approvers (owner, admin, approver) get an email when a payment waits for approval, with a link to it in ' +
    'the dashboard; owners when a password or a second factor changes, a withdrawal address is added, a ' +
    'balance falls below an alert, spending reaches an alert’s share of a cap, or an agent wallet is frozen. ' +
    'Each member chooses which of these they receive.',
  tags: ['auth'],
  response: notificationSettingsView,
  handler: async ({ request, services }) => {
    const { userId, role } = currentUser(request);
    return { data: await services.notifications.get({ userId, role }) };
  },
});

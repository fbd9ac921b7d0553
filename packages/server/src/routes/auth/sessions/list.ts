import { z } from 'zod';
import { currentUser } from '../../../http/auth-hooks.ts';
import { defineRoute } from '../../../http/route.ts';
import { timestamp } from '../../../http/views.ts';

export const sessionView = z.object({
  id: z.string(),
  current: z.boolean().describe('the session of this request'),
  createdAt: timestamp,
  lastUsedAt: timestamp.nullable().describe('to the minute'),
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
});

export default defineRoute({
  method: 'GET',
  url: '/api/v1/auth/sessions',
  auth: 'user',
  role: 'viewer',
  summary: 'List your sessions',
  description:
    'Every live session of the account (newest first, at most 100): where and when it began and was last used.',
  tags: ['auth'],
  response: z.object({ items: z.array(sessionView) }),
  handler: async ({ request, services }) => ({
    data: { items: await services.auth.sessions(currentUser(request)) },
  }),
});

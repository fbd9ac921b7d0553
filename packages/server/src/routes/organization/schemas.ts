import { z } from 'zod';
import { timestamp } from '../views.ts';

export const organizationView = z.object({
  id: z.string(),
  requireMfa: z
    .boolean()
    .describe('every member must have a second factor; without one a member can only enrol one'),
  createdAt: timestamp,
});

import { z } from 'zod';
import { timestamp } from '../../http/views.ts';
import { roleSchema } from '../members/schemas.ts';

export const organizationView = z.object({
  id: z.string(),
  requireMfa: z
    .boolean()
    .describe('every member must have a second factor; without one a member can only enrol one'),
  createdAt: timestamp,
  role: roleSchema.describe("the caller's role in the organization: what a client may offer them"),
});

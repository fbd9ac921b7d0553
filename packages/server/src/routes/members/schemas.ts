import { z } from 'zod';
import { ROLES } from '../../domain/roles.ts';
import { idSchema } from '../../http/schemas.ts';
import { timestamp } from '../views.ts';

export const roleSchema = z.enum(ROLES).describe('owner, admin, approver or viewer (contract section 9)');
export const memberParams = z.strictObject({ id: idSchema });

export const memberView = z.object({
  id: z.string(),
  email: z.string(),
  role: roleSchema,
  joinedAt: timestamp,
  mfa: z.boolean().describe('the member has a second factor (TOTP or a passkey)'),
});

export const invitationView = z.object({
  id: z.string(),
  email: z.string(),
  role: roleSchema,
  expiresAt: timestamp,
  createdAt: timestamp,
});

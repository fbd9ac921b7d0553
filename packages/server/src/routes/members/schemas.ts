import { z } from 'zod';
import { ROLES } from '../../domain/organizations/roles.ts';
import { idSchema } from '../../http/schemas.ts';
import { timestamp } from '../../http/views.ts';

export const roleSchema = z.enum(ROLES).describe('owner, admin, approver or viewer');
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

/** An API key a member made, as their removal names it: never the key. */
export const madeKeyView = z.object({ id: z.string(), label: z.string(), walletId: z.string() });

/** An OAuth connection a member allowed, as their removal names it. */
export const madeConnectionView = z.object({ id: z.string(), clientName: z.string(), walletId: z.string() });

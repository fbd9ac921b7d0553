import { z } from 'zod';
import { EMAIL_KINDS } from '../../../domain/email/mail.ts';

const KIND_DESCRIPTIONS: Record<(typeof EMAIL_KINDS)[number], string> = {
  'approval.requested': 'a payment waits for approval (members with approve rights: owner, admin, approver)',
  security: 'a password changed, a second factor added or removed (owners)',
  'withdrawal_address.added': 'an address was added to the withdrawal address book (owners)',
  'balance.low': 'a balance fell below an alert’s amount (owners)',
  'budget.threshold': 'spending reached an alert’s share of a cap (owners)',
  'wallet.frozen': 'an agent wallet was frozen (owners)',
  'treasury.at_risk': 'what a breach of the server could take rose above an alert’s amount (owners)',
};

export const emailKind = z.enum(EMAIL_KINDS);

export const notificationSettingsView = z.object({
  emailConfigured: z
    .boolean()
    .describe('the service sends email (SMTP_URL and MAIL_FROM are set); without it nothing is sent'),
  email: z
    .object(
      Object.fromEntries(
        EMAIL_KINDS.map((kind) => [kind, z.boolean().describe(KIND_DESCRIPTIONS[kind])]),
      ) as Record<(typeof EMAIL_KINDS)[number], z.ZodBoolean>,
    )
    .describe('the member’s choice per kind of email; every kind is on until turned off'),
  emailKindsForRole: z
    .array(emailKind)
    .describe('the kinds the member’s role receives; the others are never sent to them'),
});

export const notificationSettingsChange = z.strictObject({
  email: z
    .strictObject(
      Object.fromEntries(EMAIL_KINDS.map((kind) => [kind, z.boolean().optional()])) as Record<
        (typeof EMAIL_KINDS)[number],
        z.ZodOptional<z.ZodBoolean>
      >,
    )
    .describe('the kinds to turn on (true) or off (false); kinds left out keep their choice'),
});

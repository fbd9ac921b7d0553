// The email a member receives (contract section 10), in words. Pure: unit-tested.
import type { EmailKind, NotificationSettings } from '../api/custody.ts';

export const EMAIL_KIND_WORDS: Record<EmailKind, string> = {
  'approval.requested': 'A payment waits for approval (with a link to it)',
  security: 'The password changed, or a second factor was added or removed',
  'withdrawal_address.added': 'An address was added to the withdrawal address book',
  'balance.low': 'A balance fell below an alert’s amount',
  'budget.threshold': 'Spending reached an alert’s share of a cap',
  'wallet.frozen': 'An agent wallet was frozen',
  'treasury.at_risk': 'What a breach of the server could take rose above an alert’s amount',
};

export interface EmailChoice {
  kind: EmailKind;
  words: string;
  on: boolean;
}

/** The choices a member has: the kinds their role receives, each with what they chose. */
export function emailChoices(settings: NotificationSettings): EmailChoice[] {
  return settings.emailKindsForRole.map((kind) => ({
    kind,
    words: EMAIL_KIND_WORDS[kind],
    on: settings.email[kind],
  }));
}

/** A line above the choices when there is something to know first; null when there is not. */
export function emailNotice(settings: NotificationSettings): string | null {
  if (settings.emailKindsForRole.length === 0) {
    return 'Your role receives no email: approvers get payments waiting for approval, owners also security and wallet alerts.';
  }
  if (!settings.emailConfigured) {
    return 'This service sends no email yet (its operator has not set SMTP_URL); your choices apply once it does.';
  }
  return null;
}

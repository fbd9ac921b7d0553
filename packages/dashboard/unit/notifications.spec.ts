import { describe, expect, it } from 'vitest';
import type { NotificationSettings } from '../src/api/custody.ts';
import { EMAIL_KIND_WORDS, emailChoices, emailNotice } from '../src/views/notifications.ts';

const all = {
  'approval.requested': true,
  security: false,
  'withdrawal_address.added': true,
  'balance.low': true,
  'budget.threshold': true,
  'wallet.frozen': true,
  'treasury.at_risk': true,
};

describe('email notifications in words', () => {
  it('offers the kinds the role receives, with the member’s choice', () => {
    const owner: NotificationSettings = {
      emailConfigured: true,
      email: all,
      emailKindsForRole: ['approval.requested', 'security'],
    };
    expect(emailChoices(owner)).toEqual([
      { kind: 'approval.requested', words: EMAIL_KIND_WORDS['approval.requested'], on: true },
      { kind: 'security', words: EMAIL_KIND_WORDS.security, on: false },
    ]);
    expect(emailNotice(owner)).toBeNull();
  });

  it('says when the role receives nothing, or the service sends no email', () => {
    const viewer: NotificationSettings = { emailConfigured: true, email: all, emailKindsForRole: [] };
    expect(emailChoices(viewer)).toEqual([]);
    expect(emailNotice(viewer)).toMatch(/role receives no email/);
    const off: NotificationSettings = { ...viewer, emailConfigured: false, emailKindsForRole: ['security'] };
    expect(emailNotice(off)).toMatch(/SMTP_URL/);
  });
});

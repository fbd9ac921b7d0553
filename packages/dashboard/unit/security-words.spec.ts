import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/api/errors.ts';
import {
  codeFieldWords,
  describeSecurityEvent,
  describeUserAgent,
  groupSecret,
  mfaChallengeOf,
  recoveryCodesFileName,
  recoveryCodesText,
  stepUpRefusal,
} from '../src/views/security.ts';
import { passkeyFailure } from '../src/webauthn.ts';

const named = (name: string) => Object.assign(new Error('browser said no'), { name });

describe('the code field of a login’s second step or a step-up', () => {
  it('asks for what the methods allow', () => {
    expect(codeFieldWords(['totp', 'passkey', 'recovery_code'])?.hint).toMatch(
      /authenticator app, or one of/,
    );
    expect(codeFieldWords(['totp'])).toEqual({
      label: 'Authentication code',
      hint: 'The 6-digit code from your authenticator app.',
    });
    expect(codeFieldWords(['passkey', 'recovery_code'])?.label).toBe('Recovery code');
    expect(codeFieldWords(['passkey'])).toBeNull();
    expect(codeFieldWords(['password'])).toBeNull();
  });
});

describe('a refused proof of presence', () => {
  it('says what was wrong in the terms of what was tried', () => {
    const refused = new ApiError('INVALID_CREDENTIALS', 401, 'the code is wrong or was already used');
    expect(stepUpRefusal(refused, 'password').message).toBe('That password is not right.');
    expect(stepUpRefusal(refused, 'totp').message).toMatch(/^That code is not right, or it was already used/);
    expect(stepUpRefusal(refused, 'passkey').message).toMatch(/^The passkey was not accepted/);
    expect(stepUpRefusal(refused, 'password').message).not.toMatch(/email/);
  });

  it('leaves every other failure as it was (a 429 keeps its countdown)', () => {
    const limited = new ApiError('RATE_LIMITED', 429, 'slow down', { retryAfter: 30 });
    expect(stepUpRefusal(limited, 'totp')).toBe(limited);
  });
});

describe('a login’s 401 MFA_REQUIRED', () => {
  it('becomes the second step: the token and the ways offered', () => {
    const error = new ApiError('MFA_REQUIRED', 401, 'a second factor is needed', {
      details: { mfaToken: 'mfa_abc', methods: ['totp', 'passkey', 'recovery_code', 'carrier-pigeon'] },
    });
    expect(mfaChallengeOf(error)).toEqual({
      mfaToken: 'mfa_abc',
      methods: ['totp', 'passkey', 'recovery_code'],
    });
  });

  it('is nothing for any other failure, or without a token', () => {
    expect(mfaChallengeOf(new ApiError('INVALID_CREDENTIALS', 401, ''))).toBeNull();
    expect(
      mfaChallengeOf(new ApiError('MFA_REQUIRED', 401, '', { details: { methods: ['totp'] } })),
    ).toBeNull();
    expect(mfaChallengeOf(new Error('MFA_REQUIRED'))).toBeNull();
  });

  it('offers a code when the server named no method the dashboard knows', () => {
    const error = new ApiError('MFA_REQUIRED', 401, '', { details: { mfaToken: 'mfa_1', methods: [] } });
    expect(mfaChallengeOf(error)?.methods).toEqual(['totp', 'recovery_code']);
  });
});

describe('security events in words', () => {
  it('names the factor and, for a passkey, its label', () => {
    expect(describeSecurityEvent({ type: 'security.factor_added', detail: { factor: 'totp' } })).toBe(
      'Authenticator app (TOTP) turned on',
    );
    expect(
      describeSecurityEvent({
        type: 'security.factor_added',
        detail: { factor: 'passkey', label: 'Laptop' },
      }),
    ).toBe('Passkey “Laptop” added');
    expect(
      describeSecurityEvent({ type: 'security.factor_removed', detail: { factor: 'passkey', label: 'Old' } }),
    ).toBe('Passkey “Old” removed');
    expect(describeSecurityEvent({ type: 'security.factor_removed', detail: { factor: 'totp' } })).toBe(
      'Authenticator app (TOTP) turned off',
    );
  });

  it('counts the sessions a password change ended', () => {
    expect(describeSecurityEvent({ type: 'security.password_changed', detail: { endedSessions: '2' } })).toBe(
      'Password changed; 2 other sessions ended',
    );
    expect(describeSecurityEvent({ type: 'security.password_changed', detail: { endedSessions: '0' } })).toBe(
      'Password changed',
    );
  });

  it('says who changed your role, and whom you invited', () => {
    expect(
      describeSecurityEvent({
        type: 'security.member_role_changed',
        detail: { from: 'owner', to: 'viewer', by: 'a@b.co' },
      }),
    ).toBe('Your role changed from owner to viewer by a@b.co');
    expect(
      describeSecurityEvent({
        type: 'security.member_invited',
        detail: { email: 'new@b.co', role: 'admin', by: 'a@b.co' },
      }),
    ).toBe('You invited new@b.co as admin');
    expect(describeSecurityEvent({ type: 'security.member_removed', detail: { by: 'a@b.co' } })).toBe(
      'Removed from the organization by a@b.co',
    );
  });
});

describe('a session’s device from its User-Agent', () => {
  it('names browser and system, another client by its first word', () => {
    expect(
      describeUserAgent(
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/140.0 Safari/537.36',
      ),
    ).toBe('Chrome on Linux');
    expect(
      describeUserAgent(
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
      ),
    ).toBe('Safari on macOS');
    expect(
      describeUserAgent('Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0'),
    ).toBe('Firefox on Windows');
    expect(
      describeUserAgent(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      ),
    ).toBe('Safari on iOS');
    expect(describeUserAgent('curl/8.5.0')).toBe('curl/8.5.0');
    expect(describeUserAgent(null)).toBe('Unknown device');
    expect(describeUserAgent('x'.repeat(80))).toHaveLength(41);
  });
});

describe('recovery codes to keep', () => {
  it('are one a line after what they are for, in a dated .txt', () => {
    const at = new Date('2026-05-12T10:00:00Z');
    const text = recoveryCodesText(['aaaa-bbbb', 'cccc-dddd'], 'owner@example.com', at);
    expect(text.split('\n')).toContain('aaaa-bbbb');
    expect(text).toMatch(/^Agent Wallet recovery codes for owner@example.com\n/);
    expect(text).toMatch(/Each code works once/);
    expect(text.endsWith('aaaa-bbbb\ncccc-dddd\n')).toBe(true);
    expect(recoveryCodesFileName(at)).toBe('agent-wallet-recovery-codes-2026-05-12.txt');
  });

  it('the TOTP key is grouped by four for typing in', () => {
    expect(groupSecret('JBSWY3DPEHPK3PXPJBSW')).toBe('JBSW Y3DP EHPK 3PXP JBSW');
    expect(groupSecret('ABC')).toBe('ABC');
  });
});

describe('a passkey ceremony the browser refused', () => {
  it('is worded by its cause', () => {
    expect(passkeyFailure(named('NotAllowedError'), true).message).toMatch(/cancelled or timed out/);
    expect(passkeyFailure(named('InvalidStateError'), true).message).toMatch(/already holds a passkey/);
    expect(passkeyFailure(named('SecurityError'), true).message).toMatch(/domain name/);
    expect(passkeyFailure(named('UnknownError'), true).code).toBe('PASSKEY_FAILED');
    expect(passkeyFailure(new Error('x'), false).code).toBe('PASSKEY_UNSUPPORTED');
  });
});

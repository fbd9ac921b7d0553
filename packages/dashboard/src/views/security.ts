// The Security page's and the step-up dialog's words: what a code field asks for, a refused proof, a login's
// second step, security events, a session's device, the recovery codes file. Pure: unit-tested.
import type { MfaChallenge, SecurityEvent } from '../api/custody.ts';
import { ApiError } from '../api/errors.ts';
import { STEP_UP_METHODS, type StepUpMethod } from '../api/stepUp.ts';
import { plural } from '../format.ts';

/** The code field for these methods (TOTP and/or recovery code), or null when they offer none. */
export function codeFieldWords(methods: readonly StepUpMethod[]): { label: string; hint: string } | null {
  const totp = methods.includes('totp');
  const recovery = methods.includes('recovery_code');
  if (totp && recovery) {
    return {
      label: 'Authentication code',
      hint: 'The 6-digit code from your authenticator app, or one of your recovery codes.',
    };
  }
  if (totp) return { label: 'Authentication code', hint: 'The 6-digit code from your authenticator app.' };
  if (recovery) return { label: 'Recovery code', hint: 'One of the recovery codes you saved.' };
  return null;
}

/** A refused proof of presence in words that fit what was tried (the generic 401 text talks about email). */
export function stepUpRefusal(error: ApiError, method: StepUpMethod): ApiError {
  if (error.code !== 'INVALID_CREDENTIALS') return error;
  const words =
    method === 'password'
      ? 'That password is not right'
      : method === 'passkey'
        ? 'The passkey was not accepted. Try again, or use another way'
        : 'That code is not right, or it was already used. Codes change every 30 seconds: try the current one';
  return new ApiError('PROOF_REFUSED', error.status, words);
}

/** A login's 401 MFA_REQUIRED as its second step (the token and the ways offered); null for anything else. */
export function mfaChallengeOf(error: unknown): MfaChallenge | null {
  if (!(error instanceof ApiError) || error.code !== 'MFA_REQUIRED') return null;
  const { mfaToken, methods } = error.details;
  if (typeof mfaToken !== 'string' || mfaToken === '') return null;
  const known = Array.isArray(methods)
    ? methods.filter((m): m is StepUpMethod => (STEP_UP_METHODS as readonly unknown[]).includes(m))
    : [];
  return { mfaToken, methods: known.length > 0 ? known : ['totp', 'recovery_code'] };
}

/** One security event as a sentence: "Passkey “laptop” added", "Password changed; 2 other sessions ended". */
export function describeSecurityEvent(event: Pick<SecurityEvent, 'type' | 'detail'>): string {
  const { factor, label, endedSessions } = event.detail;
  const what =
    factor === 'totp'
      ? 'Authenticator app (TOTP)'
      : factor === 'passkey'
        ? `Passkey${label === undefined ? '' : ` “${label}”`}`
        : 'A second factor';
  switch (event.type) {
    case 'security.factor_added':
      return factor === 'totp' ? `${what} turned on` : `${what} added`;
    case 'security.factor_removed':
      return factor === 'totp' ? `${what} turned off` : `${what} removed`;
    case 'security.password_changed': {
      const ended = Number(endedSessions ?? '0');
      return ended > 0 ? `Password changed; ${plural(ended, 'other session')} ended` : 'Password changed';
    }
    case 'security.member_role_changed':
      return `Your role changed from ${event.detail.from ?? 'another role'} to ${event.detail.to ?? 'another role'}${byWhom(event.detail.by)}`;
    case 'security.member_invited':
      return `You invited ${event.detail.email ?? 'someone'} as ${event.detail.role ?? 'a member'}`;
    case 'security.member_removed':
      return `Removed from the organization${byWhom(event.detail.by)}`;
    default:
      return String(event.type);
  }
}

const byWhom = (by: string | undefined) => (by === undefined ? '' : ` by ${by}`);

const BROWSERS: [RegExp, string][] = [
  [/Edg\//, 'Edge'],
  [/OPR\//, 'Opera'],
  [/Firefox\//, 'Firefox'],
  [/(Headless)?Chrom(e|ium)\//, 'Chrome'],
  [/Version\/[0-9.]+.*Safari\//, 'Safari'],
];
const SYSTEMS: [RegExp, string][] = [
  [/Windows/, 'Windows'],
  [/iPhone|iPad|iPod/, 'iOS'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/Android/, 'Android'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

/** "Chrome on Linux" from a User-Agent; another client (curl, a script) by its own first word. */
export function describeUserAgent(userAgent: string | null): string {
  if (userAgent === null || userAgent.trim() === '') return 'Unknown device';
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1];
  if (browser !== undefined) return system === undefined ? browser : `${browser} on ${system}`;
  const first = userAgent.trim().split(/\s+/)[0] ?? userAgent;
  return first.length > 40 ? `${first.slice(0, 40)}…` : first;
}

/** The downloadable recovery codes: what they are for, then one code a line. */
export function recoveryCodesText(codes: readonly string[], email: string, createdAt: Date): string {
  return [
    `Agent Wallet recovery codes for ${email}`,
    `Created ${createdAt.toISOString()}`,
    '',
    'Each code works once, instead of a code from your authenticator app: to log in or to confirm an action.',
    'Keep them somewhere safe, away from this device. They are not shown again.',
    '',
    ...codes,
    '',
  ].join('\n');
}

/** The file name of the recovery codes download. */
export function recoveryCodesFileName(createdAt: Date): string {
  return `agent-wallet-recovery-codes-${createdAt.toISOString().slice(0, 10)}.txt`;
}

/** The secret of an otpauth:// URL shown for typing in by hand, in groups of four: "ABCD EFGH …". */
export function groupSecret(secret: string): string {
  return (secret.replace(/\s+/g, '').match(/.{1,4}/g) ?? []).join(' ');
}

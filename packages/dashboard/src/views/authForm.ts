// The checks the login and sign-up form makes before sending. Pure: unit-tested.

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

/** What is wrong with the email address typed, or null. */
export function emailError(email: string): string | null {
  return EMAIL_PATTERN.test(email.trim()) ? null : 'Enter your email address, e.g. name@example.com.';
}

/** What a new-password field says under it. */
export const NEW_PASSWORD_HINT = `${PASSWORD_MIN} to ${PASSWORD_MAX} characters, hard to guess: a few uncommon words work well.`;

/**
 * What is wrong with the password typed, or null: any password logs in; a new one has a length, counted in
 * characters (code points) as the server counts it. Its strength is passwordStrength.ts's (once loaded); the
 * server's other rules (not only spaces) come back as its own message.
 */
export function passwordError(password: string, signup: boolean): string | null {
  if (password === '')
    return signup ? `Choose a password of at least ${PASSWORD_MIN} characters.` : 'Enter your password.';
  const length = [...password].length;
  if (signup && length < PASSWORD_MIN) return `Use at least ${PASSWORD_MIN} characters.`;
  if (signup && length > PASSWORD_MAX) return `Use at most ${PASSWORD_MAX} characters.`;
  return null;
}

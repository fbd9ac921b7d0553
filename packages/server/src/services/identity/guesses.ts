// How guesses of an account's secrets (password, TOTP and recovery codes, passkeys) are limited: the HTTP layer
// hands these in (http/rate-limit.ts), the login, the step-up and a password change call them.

/** Called with the account's email when a password or code was wrong: it counts in `login_account`. */
export type WrongGuess = (email: string) => Promise<void>;

/** Judges a TOTP or recovery code under the account's code limit (`mfa_code`): past it, 429 even for a right one. */
export type CodeLimit = (email: string, judge: () => Promise<boolean>) => Promise<boolean>;

/** How guesses of an account's secrets are limited: every wrong one counted, codes judged under their own limit. */
export interface GuessLimits {
  wrong: WrongGuess;
  code: CodeLimit;
}

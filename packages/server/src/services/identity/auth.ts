// Users and their sessions, as one service the routes and hooks call: assembled here from the pieces that each
// hold one concern — the account and its password (account.ts), signing up (signup.ts), the one- or two-step
// login (login.ts), sessions and their tokens (sessions.ts, tokens.ts) and proof of presence (step-up.ts).

import type { ServiceContext } from '../context.ts';
import type { RequestMeta } from '../organizations/security-events.ts';
import type { AddressSource } from '../wallets/addresses.ts';
import { type AuthResult, createAccount, type PublicUser } from './account.ts';
import type { MfaService } from './factors.ts';
import type { GuessLimits, WrongGuess } from './guesses.ts';
import { createLogin, type FactorProof } from './login.ts';
import type { PasskeyService } from './passkeys.ts';
import { type AuthenticatedUser, createSessionList, createSessions, type SessionView } from './sessions.ts';
import { createSignup } from './signup.ts';
import { createStepUp, type Proof, type StepUpRule } from './step-up.ts';
import type { TokenClaims } from './tokens.ts';

export type { AuthResult, PublicUser } from './account.ts';
export type { CodeLimit, GuessLimits, WrongGuess } from './guesses.ts';
export type { FactorProof } from './login.ts';
export type { AuthenticatedUser, SessionView } from './sessions.ts';
export type { Proof, StepUpMethod, StepUpRule } from './step-up.ts';
export type { TokenClaims } from './tokens.ts';

export interface AuthService {
  /** Sets a new password with the operator's reset link (password-reset.ts); every session ends. */
  resetPasswordWithLink(
    token: string,
    newPassword: string,
    meta: RequestMeta,
  ): Promise<{ email: string; endedSessions: number }>;
  /** A new login: its own organization, or with an invitation's token that organization, with its role. */
  signup(
    email: string,
    password: string,
    meta: RequestMeta,
    invitationToken?: string | undefined,
  ): Promise<AuthResult>;
  /**
   * A right password starts a session, or with a factor active throws MFA_REQUIRED with a single-use
   * mfaToken. `lockedOut` (the account's failed-login bucket is full): only the factor path is open, and null
   * means "refuse" (the caller answers 429 whether or not the password was right).
   */
  login(email: string, password: string, meta: RequestMeta, lockedOut: boolean): Promise<AuthResult | null>;
  /** The second step of a login: the mfaToken and a TOTP or recovery code, or a passkey. */
  loginWithFactor(
    mfaToken: string,
    proof: FactorProof,
    meta: RequestMeta,
    limits: GuessLimits,
  ): Promise<AuthResult>;
  /** WebAuthn options for a login's second step (the challenge rides on the mfaToken). */
  passkeyLoginOptions(mfaToken: string): Promise<unknown>;
  logout(sessionId: string): Promise<void>;
  me(userId: string): Promise<PublicUser>;
  /** Signature and expiry only (no database): enough to key a rate limit by user. */
  verifyTokenSignature(token: string): Promise<TokenClaims | null>;
  /** Full check: signature, expiry, and a live session. */
  authenticate(token: string): Promise<AuthenticatedUser | null>;
  /** Throws STEP_UP_REQUIRED unless the session proved presence recently enough for `rule`. */
  requireStepUp(user: AuthenticatedUser, rule: StepUpRule): Promise<void>;
  /** Renews the session's proof of presence: a factor when one is active, else the password. */
  stepUp(user: AuthenticatedUser, proof: Proof, limits: GuessLimits): Promise<{ steppedUpAt: string }>;
  emailOf(userId: string): Promise<string>;
  sessions(user: TokenClaims): Promise<SessionView[]>;
  /** Ends one of the user's live sessions (404 otherwise), at once on every instance. */
  endSession(userId: string, sessionId: string): Promise<void>;
  /** Ends every live session of the user but `keep`; how many ended. */
  endOtherSessions(user: TokenClaims): Promise<number>;
  changePassword(
    user: TokenClaims,
    change: { currentPassword: string; newPassword: string },
    meta: RequestMeta,
    wrong: WrongGuess,
  ): Promise<{ endedSessions: number }>;
}

export function createAuthService(
  ctx: ServiceContext,
  options: {
    jwtSecret: Uint8Array;
    addresses: AddressSource;
    mfa: MfaService;
    passkeys: PasskeyService;
    stepUpMaxAgeMs: number;
  },
): AuthService {
  const { mfa, passkeys } = options;
  const sessions = createSessions(ctx, options.jwtSecret);
  const ownSessions = createSessionList(ctx);
  const account = createAccount(ctx);
  const login = createLogin(ctx, { mfa, passkeys, startSession: sessions.start });
  const presence = createStepUp(ctx, { mfa, passkeys, stepUpMaxAgeMs: options.stepUpMaxAgeMs });
  return {
    resetPasswordWithLink: account.resetPasswordWithLink,
    signup: createSignup(ctx, { addresses: options.addresses, startSession: sessions.start }),
    login: login.login,
    loginWithFactor: login.loginWithFactor,
    passkeyLoginOptions: login.passkeyLoginOptions,
    logout: sessions.logout,
    me: account.me,
    verifyTokenSignature: sessions.verifyTokenSignature,
    authenticate: sessions.authenticate,
    requireStepUp: presence.requireStepUp,
    stepUp: presence.stepUp,
    emailOf: account.emailOf,
    sessions: ownSessions.list,
    endSession: ownSessions.endSession,
    endOtherSessions: ownSessions.endOtherSessions,
    changePassword: account.changePassword,
  };
}

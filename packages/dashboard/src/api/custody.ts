// The owner's side of custody (contract section 8): second factor (TOTP, passkeys, recovery codes), the two-step
// login, step-up, sessions, security events, and withdrawals from the master wallet. The SDK has no methods for
// these routes yet, so they go through ApiClient.request (the same adapter: rate limits, 401, step-up). The
// answers' types are the SDK's wire types, generated from the server's OpenAPI document.
import type { Session as AuthResult, WireOperations } from '@agent-wallet/sdk';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/browser';
import type { Requester } from './request.ts';
import type { StepUpMethod } from './stepUp.ts';

/** The `data` of an operation's success answer (200 or 201). */
export type Answer<Op extends keyof WireOperations> = WireOperations[Op]['responses'] extends {
  200: { content: { 'application/json': { data: infer Data } } };
}
  ? Data
  : WireOperations[Op]['responses'] extends { 201: { content: { 'application/json': { data: infer Data } } } }
    ? Data
    : never;

export type MfaStatus = Answer<'mfaStatus'>;
export type TotpEnrolment = Answer<'startTotp'>;
export type Passkey = Answer<'listPasskeys'>['items'][number];
export type SessionInfo = Answer<'listSessions'>['items'][number];
export type SecurityEventPage = Answer<'securityEvents'>;
export type SecurityEvent = SecurityEventPage['items'][number];
export type WithdrawalAddress = Answer<'listWithdrawalAddresses'>['items'][number];
export type Withdrawal = Answer<'withdrawMaster'>;
export type WithdrawalPage = Answer<'listWithdrawals'>;
export type NotificationSettings = Answer<'getNotifications'>;
export type EmailKind = keyof NotificationSettings['email'];

/** A login's second step, from its 401 MFA_REQUIRED. */
export interface MfaChallenge {
  mfaToken: string;
  methods: StepUpMethod[];
}

/** What proves presence for a step-up: exactly one of them. */
export type StepUpProof = { password: string } | { code: string } | { passkey: AuthenticationResponseJSON };

export interface WithdrawParams {
  toAddress: string;
  amount: string;
  memo?: string;
  /** Kept for a retry after an unknown outcome, so the money never leaves twice. */
  idempotencyKey: string;
}

const id = encodeURIComponent;

export function custodyApi(client: Requester) {
  return {
    // ---- a forgotten password: the operator's reset link (agent-wallet reset-password) ------------------
    resetPassword: (token: string, newPassword: string) =>
      client.request<{ passwordReset: true; endedSessions: number }>('POST', '/auth/password/reset', {
        body: { token, newPassword },
      }),
    // ---- the two-step login and step-up --------------------------------------------------------------
    loginWithCode: (mfaToken: string, code: string) =>
      client.request<AuthResult>('POST', '/auth/login/mfa', { body: { mfaToken, code } }),
    loginWithPasskey: (mfaToken: string, passkey: AuthenticationResponseJSON) =>
      client.request<AuthResult>('POST', '/auth/login/mfa', { body: { mfaToken, passkey } }),
    passkeyLoginOptions: (mfaToken: string) =>
      client.request<PublicKeyCredentialRequestOptionsJSON>('POST', '/auth/passkeys/authentication-options', {
        body: { mfaToken },
      }),
    stepUp: (proof: StepUpProof) =>
      client.request<Answer<'stepUp'>>('POST', '/auth/step-up', { body: proof }),
    passkeyStepUpOptions: () =>
      client.request<PublicKeyCredentialRequestOptionsJSON>('POST', '/auth/step-up/passkey-options'),

    // ---- second factor -------------------------------------------------------------------------------
    mfaStatus: () => client.request<MfaStatus>('GET', '/auth/mfa'),
    startTotp: () => client.request<TotpEnrolment>('POST', '/auth/mfa/totp'),
    confirmTotp: (code: string) =>
      client.request<Answer<'confirmTotp'>>('POST', '/auth/mfa/totp/confirm', { body: { code } }),
    removeTotp: () => client.request<Answer<'removeTotp'>>('DELETE', '/auth/mfa/totp'),
    passkeys: () => client.request<Answer<'listPasskeys'>>('GET', '/auth/passkeys'),
    passkeyRegistrationOptions: () =>
      client.request<PublicKeyCredentialCreationOptionsJSON>('POST', '/auth/passkeys/registration-options'),
    registerPasskey: (label: string, response: RegistrationResponseJSON) =>
      client.request<Passkey>('POST', '/auth/passkeys', { body: { label, response } }),
    removePasskey: (passkeyId: string) =>
      client.request<Answer<'removePasskey'>>('DELETE', `/auth/passkeys/${id(passkeyId)}`),

    // ---- sessions, password, events ------------------------------------------------------------------
    sessions: () => client.request<Answer<'listSessions'>>('GET', '/auth/sessions'),
    endSession: (sessionId: string) =>
      client.request<Answer<'endSession'>>('DELETE', `/auth/sessions/${id(sessionId)}`),
    endOtherSessions: () => client.request<Answer<'endOtherSessions'>>('POST', '/auth/sessions/end-others'),
    changePassword: (currentPassword: string, newPassword: string) =>
      client.request<Answer<'changePassword'>>('POST', '/auth/password', {
        body: { currentPassword, newPassword },
      }),
    securityEvents: (page: number, limit: number) =>
      client.request<SecurityEventPage>('GET', '/auth/security-events', { query: { page, limit } }),
    notifications: () => client.request<NotificationSettings>('GET', '/auth/notifications'),
    updateNotifications: (email: Partial<Record<EmailKind, boolean>>) =>
      client.request<NotificationSettings>('PATCH', '/auth/notifications', { body: { email } }),

    // ---- withdrawals from the master wallet ----------------------------------------------------------
    withdrawalAddresses: () =>
      client.request<Answer<'listWithdrawalAddresses'>>('GET', '/wallet/withdrawal-addresses'),
    addWithdrawalAddress: (address: string, label: string) =>
      client.request<WithdrawalAddress>('POST', '/wallet/withdrawal-addresses', { body: { address, label } }),
    removeWithdrawalAddress: (addressId: string) =>
      client.request<Answer<'removeWithdrawalAddress'>>(
        'DELETE',
        `/wallet/withdrawal-addresses/${id(addressId)}`,
      ),
    withdraw: ({ idempotencyKey, ...body }: WithdrawParams) =>
      client.request<Withdrawal>('POST', '/wallet/withdrawals', { body, idempotencyKey }),
    withdrawals: (page: number, limit: number) =>
      client.request<WithdrawalPage>('GET', '/wallet/withdrawals', { query: { page, limit } }),
  };
}

export type CustodyApi = ReturnType<typeof custodyApi>;

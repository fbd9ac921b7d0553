// Every route of the service, in the order the OpenAPI document lists them.
import type { defineRoute } from '../http/route.ts';
import createAgentWallet from './agent-wallets/create.ts';
import freezeAgentWallet from './agent-wallets/freeze.ts';
import fundAgentWallet from './agent-wallets/fund.ts';
import getAgentWallet from './agent-wallets/get.ts';
import listAgentWallets from './agent-wallets/list.ts';
import unfreezeAgentWallet from './agent-wallets/unfreeze.ts';
import updateAgentWallet from './agent-wallets/update.ts';
import withdrawAgentWallet from './agent-wallets/withdraw.ts';
import createAlert from './alerts/create.ts';
import deleteAlert from './alerts/delete.ts';
import listAlerts from './alerts/list.ts';
import listAudit from './audit/list.ts';
import login from './auth/login/login.ts';
import loginMfa from './auth/login/login-mfa.ts';
import logout from './auth/login/logout.ts';
import me from './auth/login/me.ts';
import signup from './auth/login/signup.ts';
import stepUp from './auth/login/step-up.ts';
import mfaStatus from './auth/mfa/status.ts';
import confirmTotp from './auth/mfa/totp-confirm.ts';
import removeTotp from './auth/mfa/totp-remove.ts';
import startTotp from './auth/mfa/totp-start.ts';
import getNotifications from './auth/notifications/get.ts';
import updateNotifications from './auth/notifications/update.ts';
import listPasskeys from './auth/passkeys/list.ts';
import passkeyLoginOptions from './auth/passkeys/login-options.ts';
import registerPasskey from './auth/passkeys/register.ts';
import passkeyRegistrationOptions from './auth/passkeys/registration-options.ts';
import removePasskey from './auth/passkeys/remove.ts';
import passkeyStepUpOptions from './auth/passkeys/step-up-options.ts';
import changePassword from './auth/password/change.ts';
import resetPassword from './auth/password/reset.ts';
import endSession from './auth/sessions/end.ts';
import endOtherSessions from './auth/sessions/end-others.ts';
import listSessions from './auth/sessions/list.ts';
import securityEvents from './auth/sessions/security-events.ts';
import createKey from './keys/create.ts';
import listKeys from './keys/list.ts';
import revokeKey from './keys/revoke.ts';
import rotateKey from './keys/rotate.ts';
import listInvitations from './members/invitations.ts';
import inviteMember from './members/invite.ts';
import listMembers from './members/list.ts';
import removeMember from './members/remove.ts';
import revokeInvitation from './members/revoke-invitation.ts';
import updateMember from './members/update.ts';
import oauthConsent from './oauth/consent.ts';
import oauthConsentPreview from './oauth/consent-preview.ts';
import oauthDeny from './oauth/deny.ts';
import getOrganization from './organization/get.ts';
import updateOrganization from './organization/update.ts';
import policyChanges from './policies/changes.ts';
import createPolicy from './policies/create.ts';
import deletePolicy from './policies/delete.ts';
import listPolicies from './policies/list.ts';
import simulatePolicies from './policies/simulate.ts';
import updatePolicy from './policies/update.ts';
import health from './system/health.ts';
import healthLive from './system/health-live.ts';
import healthReady from './system/health-ready.ts';
import callTool from './tools/call.ts';
import listTools from './tools/list.ts';
import approveTransaction from './transactions/approve.ts';
import getTransaction from './transactions/get.ts';
import listTransactions from './transactions/list.ts';
import pendingTransactions from './transactions/pending.ts';
import rejectTransaction from './transactions/reject.ts';
import walletBalance from './wallet/balance.ts';
import walletDeposits from './wallet/deposits.ts';
import getWallet from './wallet/get.ts';
import pendingDeposits from './wallet/pending-deposits.ts';
import sandboxDeposit from './wallet/sandbox-deposit.ts';
import walletTreasury from './wallet/treasury.ts';
import treasuryOwners from './wallet/treasury-owners.ts';
import treasuryPasskeyOptions from './wallet/treasury-passkey-options.ts';
import listTreasurySignatures from './wallet/treasury-requests.ts';
import treasuryRevoke from './wallet/treasury-revoke.ts';
import treasurySignatures from './wallet/treasury-signatures.ts';
import withdrawMaster from './wallet/withdraw.ts';
import getWithdrawal from './wallet/withdrawal.ts';
import addWithdrawalAddress from './wallet/withdrawal-address-add.ts';
import removeWithdrawalAddress from './wallet/withdrawal-address-remove.ts';
import listWithdrawalAddresses from './wallet/withdrawal-addresses.ts';
import listWithdrawals from './wallet/withdrawals.ts';
import createWebhook from './webhooks/create.ts';
import deleteWebhook from './webhooks/delete.ts';
import webhookDeliveries from './webhooks/deliveries.ts';
import listWebhooks from './webhooks/list.ts';
import redeliverWebhook from './webhooks/redeliver.ts';
import rotateWebhookSecret from './webhooks/rotate-secret.ts';
import updateWebhook from './webhooks/update.ts';

export type AnyRoute = ReturnType<typeof defineRoute>;

/**
 * Every route, keyed by its OpenAPI operationId: the names read as SDK method names (`createPolicy`,
 * `listWebhooks`).
 */
export const ROUTE_TABLE = {
  health,
  healthLive,
  healthReady,
  signup,
  login,
  loginMfa,
  logout,
  me,
  stepUp,
  listSessions,
  endSession,
  endOtherSessions,
  changePassword,
  resetPassword,
  mfaStatus,
  startTotp,
  confirmTotp,
  removeTotp,
  passkeyRegistrationOptions,
  registerPasskey,
  listPasskeys,
  removePasskey,
  passkeyLoginOptions,
  passkeyStepUpOptions,
  securityEvents,
  getNotifications,
  updateNotifications,
  getOrganization,
  updateOrganization,
  listMembers,
  updateMember,
  removeMember,
  inviteMember,
  listInvitations,
  revokeInvitation,
  listAudit,
  createAlert,
  listAlerts,
  deleteAlert,
  getWallet,
  walletBalance,
  walletDeposits,
  sandboxDeposit,
  pendingDeposits,
  walletTreasury,
  listTreasurySignatures,
  treasurySignatures,
  treasuryPasskeyOptions,
  treasuryRevoke,
  treasuryOwners,
  addWithdrawalAddress,
  listWithdrawalAddresses,
  removeWithdrawalAddress,
  withdrawMaster,
  listWithdrawals,
  getWithdrawal,
  createAgentWallet,
  listAgentWallets,
  getAgentWallet,
  updateAgentWallet,
  fundAgentWallet,
  withdrawAgentWallet,
  freezeAgentWallet,
  unfreezeAgentWallet,
  createKey,
  listKeys,
  revokeKey,
  rotateKey,
  oauthConsentPreview,
  oauthConsent,
  oauthDeny,
  createPolicy,
  listPolicies,
  updatePolicy,
  deletePolicy,
  simulatePolicies,
  policyChanges,
  listTransactions,
  pendingTransactions,
  getTransaction,
  approveTransaction,
  rejectTransaction,
  listTools,
  callTool,
  createWebhook,
  listWebhooks,
  updateWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  webhookDeliveries,
  redeliverWebhook,
} satisfies Record<string, AnyRoute>;

export const ROUTES: readonly AnyRoute[] = Object.values(ROUTE_TABLE);

/** The operationId of a route. */
export const OPERATION_IDS: ReadonlyMap<AnyRoute, string> = new Map(
  Object.entries(ROUTE_TABLE).map(([id, route]) => [route, id]),
);

/** Routes that exist only on some rails. */
export const SANDBOX_ONLY_ROUTES: ReadonlySet<AnyRoute> = new Set([sandboxDeposit]);
export const EVM_ONLY_ROUTES: ReadonlySet<AnyRoute> = new Set([
  pendingDeposits,
  walletTreasury,
  listTreasurySignatures,
  treasurySignatures,
  treasuryPasskeyOptions,
  treasuryRevoke,
  treasuryOwners,
]);

// Typed calls of the REST API (contract section 3). Path segments from data are always encoded.
import type { ApiClient } from './client.ts';
import type {
  AgentWallet,
  ApiKey,
  AuthResult,
  CreatedKey,
  CreatedWebhook,
  Deposit,
  Health,
  MasterWallet,
  Movement,
  Page,
  PaymentCheck,
  PendingDeposit,
  Policy,
  PolicyChange,
  PolicyParams,
  PolicyType,
  RotatedKey,
  SandboxDeposit,
  Scope,
  Transaction,
  TransactionDetail,
  TxPage,
  TxStatus,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookInput,
} from './types.ts';

const seg = encodeURIComponent;
const walletPath = (walletId: string) => `/agent-wallets/${seg(walletId)}`;
const webhookPath = (endpointId: string) => `/webhooks/${seg(endpointId)}`;

/** Page size used to load "everything" of small lists (keys, policies, pending approvals, wallets). */
export const FULL_LIST_LIMIT = 100;

export class Api {
  readonly client: ApiClient;

  constructor(client: ApiClient) {
    this.client = client;
  }

  health() {
    return this.client.get<Health>('/health', undefined, { auth: false });
  }

  signup(email: string, password: string) {
    return this.client.post<AuthResult>('/auth/signup', { email, password }, { auth: false });
  }

  login(email: string, password: string) {
    return this.client.post<AuthResult>('/auth/login', { email, password }, { auth: false });
  }

  logout() {
    return this.client.post<{ loggedOut: true }>('/auth/logout');
  }

  masterWallet() {
    return this.client.get<MasterWallet>('/wallet');
  }

  deposits(page: number, limit: number) {
    return this.client.get<Page<Deposit>>('/wallet/deposits', { page, limit });
  }

  /** evm rail only (404 on the sandbox): transfers on their way in, not yet credited. */
  pendingDeposits(page: number, limit: number) {
    return this.client.get<Page<PendingDeposit>>('/wallet/deposits/pending', { page, limit });
  }

  sandboxDeposit(amount: string) {
    return this.client.post<SandboxDeposit>('/wallet/sandbox/deposit', { amount });
  }

  agentWallets(page: number, limit = FULL_LIST_LIMIT) {
    // `pendingApprovals` counts the waiting payments of all the user's wallets, not only this page's.
    return this.client.get<Page<AgentWallet> & { pendingApprovals: number }>('/agent-wallets', {
      page,
      limit,
    });
  }

  agentWallet(walletId: string) {
    return this.client.get<AgentWallet>(walletPath(walletId));
  }

  createAgentWallet(label: string) {
    return this.client.post<AgentWallet>('/agent-wallets', { label });
  }

  renameAgentWallet(walletId: string, label: string) {
    return this.client.patch<AgentWallet>(walletPath(walletId), { label });
  }

  setFrozen(walletId: string, frozen: boolean) {
    return this.client.post<AgentWallet>(`${walletPath(walletId)}/${frozen ? 'freeze' : 'unfreeze'}`);
  }

  /** fund: master -> agent; withdraw: agent -> master. The idempotency key makes a retry safe. */
  move(walletId: string, direction: 'fund' | 'withdraw', amount: string, idempotencyKey: string) {
    return this.client.post<Movement>(`${walletPath(walletId)}/${direction}`, { amount }, { idempotencyKey });
  }

  keys(walletId: string) {
    return this.client.get<Page<ApiKey>>(`${walletPath(walletId)}/keys`, { limit: FULL_LIST_LIMIT });
  }

  createKey(walletId: string, input: { label: string; scopes: Scope[]; expiresAt?: string }) {
    return this.client.post<CreatedKey>(`${walletPath(walletId)}/keys`, input);
  }

  revokeKey(walletId: string, keyId: string) {
    return this.client.post<ApiKey>(`${walletPath(walletId)}/keys/${seg(keyId)}/revoke`);
  }

  rotateKey(walletId: string, keyId: string, gracePeriodSeconds: number) {
    return this.client.post<RotatedKey>(`${walletPath(walletId)}/keys/${seg(keyId)}/rotate`, {
      gracePeriodSeconds,
    });
  }

  policies(walletId: string) {
    return this.client.get<Page<Policy>>(`${walletPath(walletId)}/policies`, { limit: FULL_LIST_LIMIT });
  }

  createPolicy(walletId: string, type: PolicyType, params: PolicyParams) {
    return this.client.post<Policy>(`${walletPath(walletId)}/policies`, { type, params });
  }

  updatePolicy(walletId: string, policyId: string, change: { params?: PolicyParams; active?: boolean }) {
    return this.client.patch<Policy>(`${walletPath(walletId)}/policies/${seg(policyId)}`, change);
  }

  deletePolicy(walletId: string, policyId: string) {
    return this.client.delete<{ id: string; deleted: true }>(
      `${walletPath(walletId)}/policies/${seg(policyId)}`,
    );
  }

  /** What send_payment would decide now for this payment; nothing is paid, held or stored. */
  simulatePayment(walletId: string, toAddress: string, amount: string) {
    return this.client.post<PaymentCheck>(`${walletPath(walletId)}/policies/simulate`, { toAddress, amount });
  }

  policyChanges(walletId: string, page: number, limit: number) {
    return this.client.get<Page<PolicyChange>>(`${walletPath(walletId)}/policies/changes`, { page, limit });
  }

  webhooks() {
    return this.client.get<Page<WebhookEndpoint>>('/webhooks', { limit: FULL_LIST_LIMIT });
  }

  createWebhook(input: WebhookInput) {
    return this.client.post<CreatedWebhook>('/webhooks', input);
  }

  updateWebhook(endpointId: string, change: Partial<WebhookInput>) {
    return this.client.patch<WebhookEndpoint>(webhookPath(endpointId), change);
  }

  deleteWebhook(endpointId: string) {
    return this.client.delete<{ id: string; deleted: true }>(webhookPath(endpointId));
  }

  webhookDeliveries(endpointId: string, page: number, limit: number) {
    return this.client.get<Page<WebhookDelivery>>(`${webhookPath(endpointId)}/deliveries`, { page, limit });
  }

  redeliver(endpointId: string, deliveryId: string) {
    return this.client.post<WebhookDelivery>(
      `${webhookPath(endpointId)}/deliveries/${seg(deliveryId)}/redeliver`,
    );
  }

  transactions(walletId: string, page: number, limit: number, status?: TxStatus) {
    return this.client.get<TxPage>(`${walletPath(walletId)}/transactions`, { page, limit, status });
  }

  transaction(walletId: string, transactionId: string) {
    return this.client.get<TransactionDetail>(`${walletPath(walletId)}/transactions/${seg(transactionId)}`);
  }

  pending(walletId: string) {
    return this.client.get<TxPage>(`${walletPath(walletId)}/transactions/pending`, {
      limit: FULL_LIST_LIMIT,
    });
  }

  approve(walletId: string, transactionId: string) {
    return this.client.post<Transaction>(
      `${walletPath(walletId)}/transactions/${seg(transactionId)}/approve`,
    );
  }

  reject(walletId: string, transactionId: string, reason: string) {
    const body = reason.trim() === '' ? undefined : { reason: reason.trim() };
    return this.client.post<Transaction>(
      `${walletPath(walletId)}/transactions/${seg(transactionId)}/reject`,
      body,
    );
  }
}

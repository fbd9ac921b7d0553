// Compile-time proof that the SDK's hand-written wire types say what the server's OpenAPI document says
// (src/wire.generated.ts, generated from it): every answer the document allows fits the SDK's type, and the
// SDK names no field the document lacks. A route that changes its schema breaks the SDK's build (and so its
// packed-tarball test) until the type follows. Type-only: nothing here exists at run time.
import type {
  AgentWallet,
  AgentWalletPage,
  Alert,
  ApiKey,
  AuditEntry,
  AwaitingSignatures,
  CreatedApiKey,
  CreatedInvitation,
  CreatedWebhookEndpoint,
  Deleted,
  Deposit,
  Health,
  Invitation,
  ItemList,
  MasterWallet,
  MasterWithdrawal,
  MasterWithdrawalAnswer,
  Member,
  Movement,
  Organization,
  OwnersRequestPage,
  Page,
  Policy,
  RemovedMember,
  RevokedInvitation,
  RotatedApiKey,
  RotatedWebhookSecret,
  Session,
  Transaction,
  TransactionPage,
  TransactionWithEvents,
  TreasuryOwnersChange,
  TreasuryRequestsOptions,
  TreasuryRevocation,
  TreasurySignatureResult,
  TreasuryView,
  User,
  WalletBalance,
  WebhookDelivery,
  WebhookEndpoint,
  WithdrawalAddress,
} from './types.ts';
import type { operations } from './wire.generated.ts';

type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
/** The `data` of an operation's success answer. */
type Data<Op extends keyof operations> = operations[Op]['responses'] extends infer R
  ? R extends Record<200, infer Ok>
    ? Json<Ok> extends { data: infer D }
      ? D
      : never
    : R extends Record<201, infer Created>
      ? Json<Created> extends { data: infer D }
        ? D
        : never
      : never
  : never;

/** The `data` of an operation's 202 answer (accepted, not done: a withdrawal waiting for the owners). */
type Accepted<Op extends keyof operations> =
  operations[Op]['responses'] extends Record<202, infer A>
    ? Json<A> extends { data: infer D }
      ? D
      : never
    : never;

/** Every documented answer fits the SDK's type, and the SDK's type has no key the document lacks. */
type Fits<Hand, Wire> = [Wire] extends [Hand]
  ? Exclude<keyof Hand, keyof Wire> extends never
    ? true
    : { sdkOnlyKeys: Exclude<keyof Hand, keyof Wire> }
  : { documentedAnswerDoesNotFit: Wire };
type Expect<T extends true> = T;
/**
 * The treasury's types (types/treasury.ts) are aliases of the generated ones, so they cannot disagree with the
 * document; what can go wrong is an alias reading an answer the operation no longer has (a status changed):
 * `never`, which every use would accept.
 */
type Present<T> = [T] extends [never] ? { resolvesToNever: true } : true;
/** A list call's options name only query parameters its operation takes. */
type QueryOf<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;
type Asks<Options, Op extends keyof operations> =
  Exclude<keyof Options, keyof QueryOf<Op>> extends never
    ? true
    : { sdkOnlyOptions: Exclude<keyof Options, keyof QueryOf<Op>> };

export type WireChecks = [
  Expect<Fits<Health, Data<'health'>>>,
  Expect<Fits<Session, Data<'signup'>>>,
  Expect<Fits<Session, Data<'login'>>>,
  Expect<Fits<{ user: User }, Data<'me'>>>,
  Expect<Fits<MasterWallet, Data<'getWallet'>>>,
  Expect<Fits<WalletBalance, Data<'walletBalance'>>>,
  Expect<Fits<Page<Deposit>, Data<'walletDeposits'>>>,
  Expect<Fits<AgentWalletPage, Data<'listAgentWallets'>>>,
  Expect<Fits<AgentWallet, Data<'createAgentWallet'>>>,
  Expect<Fits<AgentWallet, Data<'getAgentWallet'>>>,
  Expect<Fits<AgentWallet, Data<'updateAgentWallet'>>>,
  Expect<Fits<Movement, Data<'fundAgentWallet'>>>,
  Expect<Fits<Movement, Data<'withdrawAgentWallet'>>>,
  Expect<Fits<AgentWallet, Data<'freezeAgentWallet'>>>,
  Expect<Fits<Page<ApiKey>, Data<'listKeys'>>>,
  Expect<Fits<CreatedApiKey, Data<'createKey'>>>,
  Expect<Fits<ApiKey, Data<'revokeKey'>>>,
  Expect<Fits<RotatedApiKey, Data<'rotateKey'>>>,
  Expect<Fits<Page<Policy>, Data<'listPolicies'>>>,
  Expect<Fits<Policy, Data<'createPolicy'>>>,
  Expect<Fits<Policy, Data<'updatePolicy'>>>,
  Expect<Fits<TransactionPage<Transaction>, Data<'listTransactions'>>>,
  Expect<Fits<TransactionPage<Transaction>, Data<'pendingTransactions'>>>,
  Expect<Fits<TransactionWithEvents, Data<'getTransaction'>>>,
  Expect<Fits<Transaction, Data<'approveTransaction'>>>,
  Expect<Fits<Transaction, Data<'rejectTransaction'>>>,
  Expect<Fits<Page<WebhookEndpoint>, Data<'listWebhooks'>>>,
  Expect<Fits<CreatedWebhookEndpoint, Data<'createWebhook'>>>,
  Expect<Fits<Page<WebhookDelivery>, Data<'webhookDeliveries'>>>,
  Expect<Fits<RotatedWebhookSecret, Data<'rotateWebhookSecret'>>>,
  Expect<Fits<Organization, Data<'getOrganization'>>>,
  Expect<Fits<Organization, Data<'updateOrganization'>>>,
  Expect<Fits<ItemList<Member>, Data<'listMembers'>>>,
  Expect<Fits<Member, Data<'updateMember'>>>,
  Expect<Fits<RemovedMember, Data<'removeMember'>>>,
  Expect<Fits<ItemList<Invitation>, Data<'listInvitations'>>>,
  Expect<Fits<CreatedInvitation, Data<'inviteMember'>>>,
  Expect<Fits<RevokedInvitation, Data<'revokeInvitation'>>>,
  Expect<Fits<ItemList<Alert>, Data<'listAlerts'>>>,
  Expect<Fits<Alert, Data<'createAlert'>>>,
  Expect<Fits<Deleted, Data<'deleteAlert'>>>,
  Expect<Fits<Page<AuditEntry>, Data<'listAudit'>>>,
  Expect<Fits<WithdrawalAddress, Data<'addWithdrawalAddress'>>>,
  Expect<Fits<MasterWithdrawal, Data<'withdrawMaster'>>>,
  Expect<Fits<MasterWithdrawalAnswer, Data<'withdrawMaster'> | Accepted<'withdrawMaster'>>>,
  Expect<Present<TreasuryView>>,
  Expect<Present<OwnersRequestPage>>,
  Expect<Asks<TreasuryRequestsOptions, 'listTreasurySignatures'>>,
  Expect<Present<TreasurySignatureResult>>,
  Expect<Present<TreasuryRevocation>>,
  Expect<Present<TreasuryOwnersChange>>,
  Expect<Present<AwaitingSignatures>>,
];

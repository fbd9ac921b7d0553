// @agent-wallet/sdk: a zero-dependency, fetch-based client for the Agent Wallet Service.
export { AgentWalletClient, type AgentWalletClientOptions, type CallToolOptions } from './agent-client.ts';
export {
  CALENDAR_PERIODS,
  type CalendarPeriod,
  calendarPeriodOf,
  isCalendarPeriod,
} from './calendar-period.ts';
export {
  AgentWalletError,
  type AgentWalletErrorInit,
  AuthenticationError,
  ConflictError,
  type ErrorCode,
  InsufficientBalanceError,
  InsufficientScopeError,
  isAgentWalletError,
  NetworkError,
  NotFoundError,
  PermissionError,
  PolicyDeniedError,
  RateLimitError,
  type RateLimitInfo,
  ServerError,
  ValidationError,
  WalletFrozenError,
  X402Error,
} from './errors.ts';
export type { ClientOptions, FetchInit, FetchLike, FetchResponse, RequestOptions } from './http.ts';
export {
  AgentWalletsApi,
  AlertsApi,
  AuditApi,
  type Credentials,
  InvitationsApi,
  KeysApi,
  ManagementClient,
  type ManagementClientOptions,
  MembersApi,
  OrganizationApi,
  PoliciesApi,
  type SignupCredentials,
  TransactionsApi,
  WebhooksApi,
} from './management-client.ts';
export {
  MCP_PAYMENT_REQUIRED_CODE,
  McpPaymentPendingError,
  MPP_CREDENTIAL_META_KEY,
  type WalletPaymentsOptions,
  withWalletPayments,
  X402_PAYMENT_META_KEY,
} from './mcp-payments.ts';
export { MppApprovalPendingError, type MppChallenge, type MppMethodOptions, mppMethod } from './mpp.ts';
export {
  type CursorPageOf,
  CursorPagePromise,
  type ItemOf,
  type PageOf,
  PagePromise,
  paginate,
} from './paginate.ts';
export {
  type AnthropicTool,
  anthropicTools,
  type OpenAITool,
  openaiTools,
  type ToolDefinition,
  type ToolFilter,
  toolDefinitions,
} from './tools.ts';
export type * from './types.ts';
export { verifyWebhook, type WebhookEvent, WebhookSignatureError } from './webhooks.ts';
/** The wire types of every REST route, generated from the server's OpenAPI document. */
export type {
  components as WireComponents,
  operations as WireOperations,
  paths as WirePaths,
} from './wire.generated.ts';
export {
  X402ApprovalPendingError,
  type X402SchemeName,
  type X402SchemeOptions,
  x402Scheme,
} from './x402.ts';

// A request through the dashboard's client (ApiClient.request), as the modules the client is built from see it
// (custody.ts): they take a Requester, so the client that builds them is not imported back.
export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RequestParams {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Sent as the Idempotency-Key header: the write may then be repeated safely. */
  idempotencyKey?: string;
  /**
   * false: a STEP_UP_REQUIRED refusal comes back to the caller instead of being held and the same request sent
   * again after the step-up — for a body that cannot be sent again as it is (a passkey's answer, which a step-up
   * with that same passkey outdates).
   */
  holdForStepUp?: boolean;
}

export interface Requester {
  request<T>(method: Method, path: string, params?: RequestParams): Promise<T>;
}

// A request through the dashboard's client (ApiClient.request), as the modules the client is built from see it
// (custody.ts): they take a Requester, so the client that builds them is not imported back.
export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RequestParams {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Sent as the Idempotency-Key header: the write may then be repeated safely. */
  idempotencyKey?: string;
}

export interface Requester {
  request<T>(method: Method, path: string, params?: RequestParams): Promise<T>;
}

// What a component under test needs around it: the app's services (the SDK behind the dashboard's HTTP adapter,
// over a fake fetch), and TanStack Query's client.
import { QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApiClient } from '../../src/api/client.ts';
import { AppContext, type AppServices } from '../../src/app-context.ts';
import { newQueryClient } from '../../src/queries.ts';

export const ORIGIN = 'http://localhost';

/** The path of a URL the SDK fetched ("/api/v1/wallet"), without origin and query. */
export function pathOf(input: RequestInfo | URL): string {
  return new URL(String(input), ORIGIN).pathname;
}

export function testServices(
  fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>,
  overrides: Partial<AppServices> = {},
) {
  const client = new ApiClient({ fetch: fetch as typeof globalThis.fetch, origin: ORIGIN });
  client.setToken('t');
  const queryClient = newQueryClient();
  const services: AppServices = {
    client,
    sdk: client.sdk,
    session: { token: 't', user: { id: 'u', email: 'a@b.co', createdAt: '' }, expiresAt: Date.now() + 1e9 },
    sandbox: true,
    chain: null,
    logout: async () => {},
    role: 'owner',
    enrolmentRequired: false,
    ...overrides,
  };
  const wrap = (node: ReactNode) => (
    <QueryClientProvider client={queryClient}>
      <AppContext.Provider value={services}>{node}</AppContext.Provider>
    </QueryClientProvider>
  );
  return { services, queryClient, client, wrap };
}

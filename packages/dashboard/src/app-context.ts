// What every view of a logged-in person needs: the SDK client (through the dashboard's HTTP adapter), the
// session and the rail. Server state lives in TanStack Query's client (useQueryClient).
import type { ManagementClient } from '@agent-wallet/sdk';
import { createContext, useContext } from 'react';
import type { ApiClient } from './api/client.ts';
import { type Action, can, type Role } from './roles.ts';
import type { Session } from './session.ts';

/** What the dashboard knows of the chain on the `evm` rail (from GET /health). */
export interface ChainInfo {
  /** The block explorer's base address, when the operator configured one. */
  explorerUrl: string | null;
  /** Blocks a deposit waits before it is credited, when the server said. */
  confirmations: number | null;
}

export interface AppServices {
  client: ApiClient;
  sdk: ManagementClient;
  session: Session;
  sandbox: boolean;
  /** Set on the `evm` rail (real USDC on chain), null on any other. */
  chain: ChainInfo | null;
  logout: () => Promise<void>;
  /** The member's role in their organization (GET /auth/me); null until it is known. */
  role: Role | null;
  /**
   * The organization requires a second factor this member does not have yet (403 MFA_ENROLLMENT_REQUIRED): only
   * the Security page's enrolment works until they add one.
   */
  enrolmentRequired: boolean;
}

export const AppContext = createContext<AppServices | null>(null);

export function useApp(): AppServices {
  const services = useContext(AppContext);
  if (services === null) throw new Error('useApp() outside <AppContext.Provider>');
  return services;
}

/** Whether the logged-in member's role lets them do `action` (roles.ts decides). */
export function useCan(): (action: Action) => boolean {
  const { role } = useApp();
  return (action) => can(role, action);
}

// What every view of a logged-in person needs: the API, the response cache, the session and the rail.
import { createContext, useContext } from 'react';
import type { Api } from './api/endpoints.ts';
import type { Cache } from './cache.ts';
import type { Session } from './session.ts';

export interface AppServices {
  api: Api;
  cache: Cache;
  session: Session;
  sandbox: boolean;
  logout: () => Promise<void>;
}

export const AppContext = createContext<AppServices | null>(null);

export function useApp(): AppServices {
  const services = useContext(AppContext);
  if (services === null) throw new Error('useApp() outside <AppContext.Provider>');
  return services;
}

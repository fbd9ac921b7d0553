// The session and the server's health, as the app holds them.
import type { Session as AuthResult, Health } from '@agent-wallet/sdk';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiClient, type RefusalCode } from '../api/client.ts';
import type { ChainInfo } from '../app-context.ts';
import { K, newQueryClient } from '../queries.ts';
import { navigate } from '../router.ts';
import { clearSession, readSession, type Session, sessionFrom, writeSession } from '../session.ts';
import { MESSAGES } from './messages.ts';

/** setTimeout's longest delay (~24.8 days); a JWT lives 7. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The session (kept in sessionStorage), the API client carrying its token and the query cache that goes with
 * it: starting one, ending one (logout, expiry, a 401) with the notice the login screen shows.
 */
export function useSession() {
  const [initial] = useState(() => readSession());
  const [session, setSession] = useState<Session | null>(initial.session);
  const [notice, setNotice] = useState<string | null>(initial.expired ? MESSAGES.expired : null);
  const sessionRef = useRef<Session | null>(initial.session);
  const endSessionRef = useRef<(message: string) => void>(() => {});
  const [enrolmentRequired, setEnrolmentRequired] = useState(false);
  const queryClient = useMemo(() => newQueryClient(), []);
  const client = useMemo(() => {
    const onRefused = (code: RefusalCode) => {
      if (sessionRef.current === null) return;
      // The organization requires a second factor: the person is sent to enrol one, once, not shown errors.
      if (code === 'MFA_ENROLLMENT_REQUIRED') setEnrolmentRequired(true);
      // The role changed under this page: load it again, and the controls follow.
      else void queryClient.invalidateQueries({ queryKey: K.organization });
    };
    const created = new ApiClient({
      onUnauthorized: () => endSessionRef.current(MESSAGES.unauthorized),
      onRefused,
    });
    created.setToken(initial.session?.token);
    return created;
  }, [initial, queryClient]);

  const endSession = useCallback(
    (message: string) => {
      if (sessionRef.current === null) return;
      sessionRef.current = null;
      client.setToken(undefined);
      clearSession();
      // Cached data goes with the session; answers still on their way land in no cache.
      queryClient.clear();
      setSession(null);
      setEnrolmentRequired(false);
      setNotice(message);
    },
    [client, queryClient],
  );
  endSessionRef.current = endSession;

  const startSession = useCallback(
    (result: AuthResult) => {
      const next = sessionFrom(result.token, result.user);
      if (next === null) {
        setNotice('The server answered with a session this page cannot read. Please try again.');
        return;
      }
      queryClient.clear();
      writeSession(next);
      client.setToken(next.token);
      sessionRef.current = next;
      setSession(next);
      setEnrolmentRequired(false);
      setNotice(null);
    },
    [client, queryClient],
  );

  const logout = useCallback(async () => {
    try {
      await client.sdk.logout();
    } catch {
      // The session ends here whatever the server said.
    }
    endSession(MESSAGES.loggedOut);
    navigate('/login', { replace: true });
  }, [client, endSession]);

  useSessionExpiry(session, endSession);
  return {
    session,
    notice,
    client,
    queryClient,
    startSession,
    logout,
    enrolmentRequired,
    setEnrolmentRequired,
  };
}

/** The server's health, asked once: its rail (sandbox or evm) and chain facts. */
export function useHealth(client: ApiClient): Health | null {
  const [health, setHealth] = useState<Health | null>(null);
  useEffect(() => {
    let live = true;
    client.sdk.health().then(
      (value) => live && setHealth(value),
      () => live && setHealth(null),
    );
    return () => {
      live = false;
    };
  }, [client]);
  return health;
}

/** The session ends on its own at the token's exp (checked again when the tab comes back: timers sleep). */
function useSessionExpiry(session: Session | null, endSession: (message: string) => void) {
  useEffect(() => {
    if (session === null) return;
    const check = () => {
      if (Date.now() >= session.expiresAt) endSession(MESSAGES.expired);
    };
    const timer = setTimeout(
      check,
      Math.min(Math.max(0, session.expiresAt - Date.now() + 500), MAX_TIMER_MS),
    );
    document.addEventListener('visibilitychange', check);
    return () => {
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', check);
    };
  }, [session, endSession]);
}

/** The chain facts of an evm-rail server's health; null on any other rail (or before health answered). */
export function chainInfo(health: Health | null): ChainInfo | null {
  if (health?.rail !== 'evm') return null;
  return {
    explorerUrl: typeof health.explorerUrl === 'string' ? health.explorerUrl : null,
    confirmations: typeof health.confirmations === 'number' ? health.confirmations : null,
  };
}

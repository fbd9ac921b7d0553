import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiClient } from './api/client.ts';
import { Api } from './api/endpoints.ts';
import type { AuthResult, Health } from './api/types.ts';
import { AppContext, type AppServices, type ChainInfo, useApp } from './app-context.ts';
import { Cache } from './cache.ts';
import { Link } from './components/Link.tsx';
import { RateLimitBanner } from './components/RateLimitBanner.tsx';
import { pendingTotal, useAgentWallets } from './data.ts';
import { usePolling } from './polling.ts';
import { navigate, type Route, useRoute } from './router.ts';
import { clearSession, readSession, type Session, sessionFrom, writeSession } from './session.ts';
import { AgentWalletsView } from './views/AgentWalletsView.tsx';
import { AgentWalletView } from './views/AgentWalletView.tsx';
import { ApprovalsView } from './views/Approvals.tsx';
import { AuthScreen } from './views/AuthScreen.tsx';
import { MasterWalletView } from './views/MasterWalletView.tsx';
import { WebhooksView } from './views/WebhooksView.tsx';

export const MESSAGES = {
  expired: 'Your session has expired. Please log in again.',
  unauthorized: 'Your session has ended. Please log in again.',
  loggedOut: 'You have logged out.',
};

/** setTimeout's longest delay (~24.8 days); a JWT lives 7. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function App() {
  const [initial] = useState(() => readSession());
  const [session, setSession] = useState<Session | null>(initial.session);
  const [notice, setNotice] = useState<string | null>(initial.expired ? MESSAGES.expired : null);
  const [health, setHealth] = useState<Health | null>(null);
  const sessionRef = useRef<Session | null>(initial.session);
  const endSessionRef = useRef<(message: string) => void>(() => {});
  const cache = useMemo(() => new Cache(), []);
  const client = useMemo(
    () =>
      new ApiClient({
        getToken: () => sessionRef.current?.token ?? null,
        onUnauthorized: () => endSessionRef.current(MESSAGES.unauthorized),
      }),
    [],
  );
  const api = useMemo(() => new Api(client), [client]);

  const endSession = useCallback(
    (message: string) => {
      if (sessionRef.current === null) return;
      sessionRef.current = null;
      clearSession();
      cache.clear();
      setSession(null);
      setNotice(message);
    },
    [cache],
  );
  endSessionRef.current = endSession;

  const startSession = useCallback(
    (result: AuthResult) => {
      const next = sessionFrom(result.token, result.user);
      if (next === null) {
        setNotice('The server answered with a session this page cannot read. Please try again.');
        return;
      }
      cache.clear();
      writeSession(next);
      sessionRef.current = next;
      setSession(next);
      setNotice(null);
    },
    [cache],
  );

  const logout = useCallback(async () => {
    try {
      await api.logout();
    } catch {
      // The session ends here whatever the server said.
    }
    endSession(MESSAGES.loggedOut);
    navigate('/login', { replace: true });
  }, [api, endSession]);

  // The session ends on its own at the token's exp (checked again when the tab comes back: timers sleep).
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

  useEffect(() => {
    let live = true;
    api.health().then(
      (value) => live && setHealth(value),
      () => live && setHealth(null),
    );
    return () => {
      live = false;
    };
  }, [api]);

  // The SANDBOX marker shows only when the server says so: on the evm rail the money is real.
  const sandbox = health?.rail === 'sandbox';
  const chain = useMemo(() => chainInfo(health), [health]);
  const services = useMemo<AppServices | null>(
    () => (session === null ? null : { api, cache, session, sandbox, chain, logout }),
    [api, cache, session, sandbox, chain, logout],
  );
  const route = useRoute();

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to main content
      </a>
      {sandbox && (
        <div className="sandbox-banner" data-testid="sandbox-banner">
          <strong>SANDBOX</strong> — simulated money for trying things out; nothing here is real USDC.
        </div>
      )}
      <RateLimitBanner client={client} />
      {services === null ? (
        <AuthScreen
          key={route.name === 'signup' ? 'signup' : 'login'}
          api={api}
          mode={route.name === 'signup' ? 'signup' : 'login'}
          notice={notice}
          onAuthenticated={startSession}
        />
      ) : (
        <AppContext.Provider value={services}>
          <Shell route={route} />
        </AppContext.Provider>
      )}
    </>
  );
}

/** The chain facts of an evm-rail server's health; null on any other rail (or before health answered). */
export function chainInfo(health: Health | null): ChainInfo | null {
  if (health?.rail !== 'evm') return null;
  return {
    explorerUrl: typeof health.explorerUrl === 'string' ? health.explorerUrl : null,
    confirmations: typeof health.confirmations === 'number' ? health.confirmations : null,
  };
}

function Shell({ route }: { route: Route }) {
  usePolling();
  const { session, sandbox, logout } = useApp();
  const wallets = useAgentWallets();
  const pending = pendingTotal(wallets.data);
  const [loggingOut, setLoggingOut] = useState(false);

  useEffect(() => {
    if (route.name === 'login' || route.name === 'signup') navigate('/', { replace: true });
  }, [route.name]);

  return (
    <div className="shell">
      <header className="topbar">
        <div className="brand">
          <span>Agent Wallet</span>
          {sandbox && (
            <span className="sandbox-pill" data-testid="sandbox-pill">
              Sandbox
            </span>
          )}
        </div>
        <nav className="main-nav" aria-label="Main">
          <Link to="/" match="exact">
            Master wallet
          </Link>
          <Link to="/agents" match="prefix">
            Agent wallets
          </Link>
          <Link to="/approvals" match="exact" data-testid="nav-approvals">
            Approvals
            {pending > 0 && (
              <span className="count-badge" data-testid="approvals-badge" data-count={pending}>
                <span className="visually-hidden">: </span>
                {pending}
                <span className="visually-hidden"> waiting</span>
              </span>
            )}
          </Link>
          <Link to="/webhooks" match="exact" data-testid="nav-webhooks">
            Webhooks
          </Link>
        </nav>
        <div className="account">
          <span className="account-email" title={session.user.email}>
            {session.user.email}
          </span>
          <button
            type="button"
            className="button secondary small"
            disabled={loggingOut}
            onClick={() => {
              setLoggingOut(true);
              void logout();
            }}
          >
            Log out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1} className="content">
        <View route={route} />
      </main>
    </div>
  );
}

function View({ route }: { route: Route }) {
  switch (route.name) {
    case 'master':
    case 'login':
    case 'signup':
      return <MasterWalletView />;
    case 'agents':
      return <AgentWalletsView />;
    case 'agent':
      return <AgentWalletView key={route.walletId} walletId={route.walletId} tab={route.tab} />;
    case 'approvals':
      return <ApprovalsView />;
    case 'webhooks':
      return <WebhooksView />;
    case 'notFound':
      return <NotFound />;
  }
}

function NotFound() {
  return (
    <>
      <h1 className="page-title">Page not found</h1>
      <p>
        <Link to="/">Go to the master wallet</Link>
      </p>
    </>
  );
}

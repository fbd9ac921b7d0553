import type { Session as AuthResult, Health } from '@agent-wallet/sdk';
import { QueryClientProvider } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Route, Switch, useLocation, useSearch } from 'wouter';
import { ApiClient } from './api/client.ts';
import { AppContext, type AppServices, type ChainInfo, useApp } from './app-context.ts';
import { Link } from './components/Link.tsx';
import { RateLimitBanner } from './components/RateLimitBanner.tsx';
import { newQueryClient, pendingTotal, useAgentWallets } from './queries.ts';
import { navigate, parseTab } from './router.ts';
import { clearSession, readSession, type Session, sessionFrom, writeSession } from './session.ts';
import { AgentWalletsView } from './views/AgentWalletsView.tsx';
import { AgentWalletView } from './views/AgentWalletView.tsx';
import { ApprovalsView } from './views/Approvals.tsx';
import { AuthScreen } from './views/AuthScreen.tsx';
import { MasterWalletView } from './views/MasterWalletView.tsx';
import { SecurityView } from './views/SecurityView.tsx';
import { StepUpProvider } from './views/StepUp.tsx';
import { WebhooksView } from './views/WebhooksView.tsx';

export const MESSAGES = {
  expired: 'Your session has expired. Please log in again.',
  unauthorized: 'Your session has ended. Please log in again.',
  loggedOut: 'You have logged out.',
};

/** setTimeout's longest delay (~24.8 days); a JWT lives 7. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function App() {
  const { session, notice, client, queryClient, startSession, logout } = useSession();
  const health = useHealth(client);
  // The SANDBOX marker shows only when the server says so: on the evm rail the money is real.
  const sandbox = health?.rail === 'sandbox';
  const chain = useMemo(() => chainInfo(health), [health]);
  const services = useMemo<AppServices | null>(
    () => (session === null ? null : { client, sdk: client.sdk, session, sandbox, chain, logout }),
    [client, session, sandbox, chain, logout],
  );
  const [path] = useLocation();
  const signup = path.replace(/\/+$/, '') === '/signup';

  return (
    <QueryClientProvider client={queryClient}>
      <a className="skip-link" href="#main">
        Skip to main content
      </a>
      {sandbox && <SandboxBanner />}
      <RateLimitBanner client={client} />
      {services === null ? (
        <AuthScreen
          key={signup ? 'signup' : 'login'}
          client={client}
          mode={signup ? 'signup' : 'login'}
          notice={notice}
          onAuthenticated={startSession}
        />
      ) : (
        <AppContext.Provider value={services}>
          <Shell />
          <StepUpProvider />
        </AppContext.Provider>
      )}
    </QueryClientProvider>
  );
}

function SandboxBanner() {
  return (
    <div className="sandbox-banner" data-testid="sandbox-banner">
      <strong>SANDBOX</strong> <span className="banner-long">— simulated money for trying things out;</span>
      <span className="banner-short"> ·</span> nothing here is real USDC.
    </div>
  );
}

/**
 * The session (kept in sessionStorage), the API client carrying its token and the query cache that goes with
 * it: starting one, ending one (logout, expiry, a 401) with the notice the login screen shows.
 */
function useSession() {
  const [initial] = useState(() => readSession());
  const [session, setSession] = useState<Session | null>(initial.session);
  const [notice, setNotice] = useState<string | null>(initial.expired ? MESSAGES.expired : null);
  const sessionRef = useRef<Session | null>(initial.session);
  const endSessionRef = useRef<(message: string) => void>(() => {});
  const queryClient = useMemo(() => newQueryClient(), []);
  const client = useMemo(() => {
    const created = new ApiClient({ onUnauthorized: () => endSessionRef.current(MESSAGES.unauthorized) });
    created.setToken(initial.session?.token);
    return created;
  }, [initial]);

  const endSession = useCallback(
    (message: string) => {
      if (sessionRef.current === null) return;
      sessionRef.current = null;
      client.setToken(undefined);
      clearSession();
      // Cached data goes with the session; answers still on their way land in no cache.
      queryClient.clear();
      setSession(null);
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
  return { session, notice, client, queryClient, startSession, logout };
}

/** The server's health, asked once: its rail (sandbox or evm) and chain facts. */
function useHealth(client: ApiClient): Health | null {
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

function Shell() {
  const { session, sandbox, logout } = useApp();
  // The one poll: the wallet list, every 15 s while the tab is visible, carries every badge's number.
  const wallets = useAgentWallets(true);
  const pending = pendingTotal(wallets.data);
  const [loggingOut, setLoggingOut] = useState(false);
  const [path] = useLocation();

  useEffect(() => {
    if (path === '/login' || path === '/signup') navigate('/', { replace: true });
  }, [path]);

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
          <Link to="/security" match="exact" data-testid="nav-security">
            Security
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
        <Views />
      </main>
    </div>
  );
}

function Views() {
  const search = useSearch();
  return (
    <Switch>
      <Route path="/agents/:walletId">
        {(params) => (
          <AgentWalletView key={params.walletId} walletId={params.walletId} tab={parseTab(search)} />
        )}
      </Route>
      <Route path="/agents">
        <AgentWalletsView />
      </Route>
      <Route path="/approvals">
        <ApprovalsView />
      </Route>
      <Route path="/webhooks">
        <WebhooksView />
      </Route>
      <Route path="/security">
        <SecurityView />
      </Route>
      <Route path="/">
        <MasterWalletView />
      </Route>
      <Route path="/login">
        <MasterWalletView />
      </Route>
      <Route path="/signup">
        <MasterWalletView />
      </Route>
      <Route>
        <NotFound />
      </Route>
    </Switch>
  );
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

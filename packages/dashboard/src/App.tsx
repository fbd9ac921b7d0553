import type { Session as AuthResult, Health } from '@agent-wallet/sdk';
import { QueryClientProvider, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Route, Switch, useLocation, useSearch } from 'wouter';
import { ApiClient, type RefusalCode } from './api/client.ts';
import { AppContext, type AppServices, type ChainInfo, useApp } from './app-context.ts';
import { Link } from './components/Link.tsx';
import { RateLimitBanner } from './components/RateLimitBanner.tsx';
import { K, newQueryClient, pendingTotal, STALE, useAgentWallets } from './queries.ts';
import { ROLE_WORDS, type Role, roleOf } from './roles.ts';
import { navigate, parseTab } from './router.ts';
import { clearSession, readSession, type Session, sessionFrom, writeSession } from './session.ts';
import { AgentWalletsView } from './views/AgentWalletsView.tsx';
import { AgentWalletView } from './views/AgentWalletView.tsx';
import { ApprovalsView } from './views/Approvals.tsx';
import { AuditLogView } from './views/AuditLogView.tsx';
import { AuthScreen } from './views/AuthScreen.tsx';
import { invitationFrom } from './views/invitation.ts';
import { MasterWalletView } from './views/MasterWalletView.tsx';
import { MembersView } from './views/MembersView.tsx';
import { OAuthConsentView } from './views/OAuthConsentView.tsx';
import { OverviewView } from './views/OverviewView.tsx';
import { isConsentPath } from './views/oauthConsent.ts';
import { RESET_PATH, ResetPasswordScreen } from './views/ResetPasswordScreen.tsx';
import { SecurityView } from './views/security/SecurityView.tsx';
import { StepUpProvider } from './views/StepUp.tsx';
import { WebhooksView } from './views/WebhooksView.tsx';

export const MESSAGES = {
  expired: 'Your session has expired. Please log in again.',
  unauthorized: 'Your session has ended. Please log in again.',
  loggedOut: 'You have logged out.',
  enrolment:
    'Your organization requires a second factor for every member. Add an authenticator app or a passkey below; the rest of the dashboard opens as soon as you have one.',
  consent:
    'An app is asking to use one of your agent wallets. Log in to see which app, and to allow or deny it.',
};

/** setTimeout's longest delay (~24.8 days); a JWT lives 7. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function App() {
  const {
    session,
    notice,
    client,
    queryClient,
    startSession,
    logout,
    enrolmentRequired,
    setEnrolmentRequired,
  } = useSession();
  const health = useHealth(client);
  // The SANDBOX marker shows only when the server says so: on the evm rail the money is real.
  const sandbox = health?.rail === 'sandbox';
  const chain = useMemo(() => chainInfo(health), [health]);
  const [path] = useLocation();
  const search = useSearch();
  const bare = path.replace(/\/+$/, '');
  // An invitation link (/?invite=<token>&email=<email>, or /signup?invite=…) opens the sign-up form, filled in.
  const invitation = useMemo(() => invitationFrom(search), [search]);
  const signup = bare === '/signup' || invitation !== null;
  // An app's OAuth request (/oauth/authorize?…): the login comes first, on the same address, so the consent page
  // follows it with the app's query string intact.
  const consent = isConsentPath(path);

  return (
    <QueryClientProvider client={queryClient}>
      <a className="skip-link" href="#main">
        Skip to main content
      </a>
      {sandbox && <SandboxBanner />}
      <RateLimitBanner client={client} />
      {bare === RESET_PATH ? (
        <ResetPasswordScreen client={client} />
      ) : session === null ? (
        <AuthScreen
          key={signup ? `signup ${invitation?.token ?? ''}` : 'login'}
          client={client}
          mode={signup ? 'signup' : 'login'}
          notice={notice ?? (consent ? MESSAGES.consent : null)}
          invitation={invitation}
          onAuthenticated={startSession}
        />
      ) : (
        <SignedIn
          client={client}
          session={session}
          sandbox={sandbox}
          chain={chain}
          logout={logout}
          enrolmentRequired={enrolmentRequired}
          onEnrolled={() => setEnrolmentRequired(false)}
        />
      )}
    </QueryClientProvider>
  );
}

/**
 * A logged-in member: their role (GET /auth/me, loaded again when the server says a role no longer fits) joins
 * the services every view reads.
 */
function SignedIn({
  client,
  session,
  sandbox,
  chain,
  logout,
  enrolmentRequired,
  onEnrolled,
}: {
  client: ApiClient;
  session: Session;
  sandbox: boolean;
  chain: ChainInfo | null;
  logout: () => Promise<void>;
  enrolmentRequired: boolean;
  onEnrolled: () => void;
}) {
  // The role is the organization's answer (GET /organization), not /auth/me's: the contract keeps `{user}` as it is.
  const organization = useQuery({
    queryKey: K.organization,
    queryFn: () => client.org.organization(),
    staleTime: STALE.me,
  });
  const role = roleOf(organization.data);
  const [path] = useLocation();
  const services = useMemo<AppServices>(
    () => ({ client, sdk: client.sdk, session, sandbox, chain, logout, role, enrolmentRequired }),
    [client, session, sandbox, chain, logout, role, enrolmentRequired],
  );
  return (
    <AppContext.Provider value={services}>
      {enrolmentRequired ? (
        <EnrolmentShell onEnrolled={onEnrolled} />
      ) : isConsentPath(path) ? (
        <ConsentShell />
      ) : (
        <Shell />
      )}
      <StepUpProvider />
    </AppContext.Provider>
  );
}

/** The name in the top bar, with the sandbox's pill: the same on every shell. */
function Brand({ sandbox }: { sandbox: boolean }) {
  return (
    <div className="brand">
      <span>Agent Wallet</span>
      {sandbox && (
        <span className="sandbox-pill" data-testid="sandbox-pill">
          Sandbox
        </span>
      )}
    </div>
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
  const { session, sandbox, logout, role } = useApp();
  // The one poll: the wallet list, every 15 s while the tab is visible, carries every badge's number.
  const wallets = useAgentWallets(true);
  const pending = pendingTotal(wallets.data);
  const [path] = useLocation();
  const search = useSearch();
  const leaveAuth = path === '/login' || path === '/signup' || invitationFrom(search) !== null;

  useEffect(() => {
    if (leaveAuth) navigate('/', { replace: true });
  }, [leaveAuth]);

  return (
    <div className="shell">
      <header className="topbar">
        <Brand sandbox={sandbox} />
        <nav className="main-nav" aria-label="Main">
          <Link to="/" match="exact" data-testid="nav-overview">
            Overview
          </Link>
          <Link to="/master" match="exact" data-testid="nav-master">
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
          <Link to="/members" match="exact" data-testid="nav-members">
            Members
          </Link>
          <Link to="/audit" match="exact" data-testid="nav-audit">
            Audit log
          </Link>
          <Link to="/security" match="exact" data-testid="nav-security">
            Security
          </Link>
        </nav>
        <Account email={session.user.email} role={role} logout={logout} />
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
      <Route path="/members">
        <MembersView />
      </Route>
      <Route path="/audit">
        <AuditLogView />
      </Route>
      <Route path="/security">
        <SecurityView />
      </Route>
      <Route path="/master">
        <MasterWalletView />
      </Route>
      {/* The first page after login; /login and /signup show it too for the moment before the redirect. */}
      <Route path="/">
        <OverviewView />
      </Route>
      <Route path="/login">
        <OverviewView />
      </Route>
      <Route path="/signup">
        <OverviewView />
      </Route>
      <Route>
        <NotFound />
      </Route>
    </Switch>
  );
}

/** Who is logged in, as what, and the way out. */
function Account({ email, role, logout }: { email: string; role: Role | null; logout: () => Promise<void> }) {
  const [loggingOut, setLoggingOut] = useState(false);
  return (
    <div className="account">
      <span className="account-email" title={email}>
        {email}
      </span>
      {role !== null && (
        <span className="role-pill" data-testid="account-role" data-role={role}>
          {ROLE_WORDS[role].name}
        </span>
      )}
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
  );
}

/**
 * The organization requires a second factor and this member has none (403 MFA_ENROLLMENT_REQUIRED): only the
 * Security page's enrolment is offered, with why, and nothing else is asked of the server (no refusal loop).
 * Once the factor is there (the summary says so), the whole dashboard opens again.
 */
function EnrolmentShell({ onEnrolled }: { onEnrolled: () => void }) {
  const { session, sandbox, logout, role, client } = useApp();
  const qc = useQueryClient();
  const [path] = useLocation();
  const mfa = useQuery({
    queryKey: K.mfa,
    queryFn: () => client.custody.mfaStatus(),
    staleTime: STALE.security,
  });
  const enrolled = mfa.data !== undefined && (mfa.data.totp || mfa.data.passkeys > 0);
  // Where the person was going (an app's consent request above all): back there once a factor is enrolled.
  const [returnTo] = useState(() => (path === '/security' ? null : location.pathname + location.search));

  useEffect(() => {
    if (path !== '/security') navigate('/security', { replace: true });
  }, [path]);
  useEffect(() => {
    if (!enrolled) return;
    // What was refused while the factor was missing is asked again.
    void qc.invalidateQueries({ predicate: (query) => query.queryKey[0] !== 'mfa' });
    onEnrolled();
    if (returnTo !== null) navigate(returnTo, { replace: true });
  }, [enrolled, qc, onEnrolled, returnTo]);

  return (
    <div className="shell">
      <header className="topbar">
        <Brand sandbox={sandbox} />
        <nav className="main-nav" aria-label="Main">
          <Link to="/security" match="exact" data-testid="nav-security">
            Security
          </Link>
        </nav>
        <Account email={session.user.email} role={role} logout={logout} />
      </header>
      <main id="main" tabIndex={-1} className="content">
        <p className="notice enrolment-notice" role="alert" data-testid="mfa-enrolment-required">
          {MESSAGES.enrolment}
        </p>
        <SecurityView enrolmentOnly />
      </main>
    </div>
  );
}

/**
 * The consent page stands alone, without the dashboard's navigation: the person came from an app and goes back
 * to it, and a link away would drop the app's request.
 */
function ConsentShell() {
  const search = useSearch();
  return (
    <main id="main" className="auth-page" tabIndex={-1}>
      <OAuthConsentView search={search} />
    </main>
  );
}

function NotFound() {
  return (
    <>
      <h1 className="page-title">Page not found</h1>
      <p>
        <Link to="/">Go to the overview</Link>
      </p>
    </>
  );
}

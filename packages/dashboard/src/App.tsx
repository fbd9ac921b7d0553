// The dashboard: the reset-password and auth screens, or a logged-in member's shell (shell/: the session, the
// top bar, the routes, the enrolment and consent shells).
import { QueryClientProvider, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useLocation, useSearch } from 'wouter';
import type { ApiClient } from './api/client.ts';
import { AppContext, type AppServices, type ChainInfo } from './app-context.ts';
import { RateLimitBanner } from './components/RateLimitBanner.tsx';
import { K, STALE } from './queries.ts';
import { roleOf } from './roles.ts';
import type { Session } from './session.ts';
import { ConsentShell, EnrolmentShell } from './shell/EnrolmentShell.tsx';
import { MESSAGES } from './shell/messages.ts';
import { Shell } from './shell/Shell.tsx';
import { SandboxBanner } from './shell/TopBar.tsx';
import { chainInfo, useHealth, useSession } from './shell/useSession.ts';
import { AuthScreen } from './views/AuthScreen.tsx';
import { invitationFrom } from './views/invitation.ts';
import { isConsentPath } from './views/oauthConsent.ts';
import { RESET_PATH, ResetPasswordScreen } from './views/ResetPasswordScreen.tsx';
import { StepUpProvider } from './views/StepUp.tsx';

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

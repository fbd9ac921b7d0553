// The shells that stand in for the dashboard's: the second-factor enrolment, and an app's OAuth consent.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { useApp } from '../app-context.ts';
import { Link } from '../components/Link.tsx';
import { K, STALE } from '../queries.ts';
import { navigate } from '../router.ts';
import { OAuthConsentView } from '../views/OAuthConsentView.tsx';
import { SecurityView } from '../views/security/SecurityView.tsx';
import { MESSAGES } from './messages.ts';
import { Account, Brand } from './TopBar.tsx';

/**
 * The organization requires a second factor and this member has none (403 MFA_ENROLLMENT_REQUIRED): only the
 * Security page's enrolment is offered, with why, and nothing else is asked of the server (no refusal loop).
 * Once the factor is there (the summary says so), the whole dashboard opens again.
 */
export function EnrolmentShell({ onEnrolled }: { onEnrolled: () => void }) {
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
export function ConsentShell() {
  const search = useSearch();
  return (
    <main id="main" className="auth-page" tabIndex={-1}>
      <OAuthConsentView search={search} />
    </main>
  );
}

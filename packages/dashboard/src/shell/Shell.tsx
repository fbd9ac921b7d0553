// The dashboard's shell: the top bar with the main navigation, and the page the address names.
import { useEffect } from 'react';
import { Route, Switch, useLocation, useSearch } from 'wouter';
import { useApp } from '../app-context.ts';
import { Link } from '../components/Link.tsx';
import { pendingTotal, useAgentWallets } from '../queries.ts';
import { navigate, parseTab } from '../router.ts';
import { AgentWalletsView } from '../views/AgentWalletsView.tsx';
import { AgentWalletView } from '../views/AgentWalletView.tsx';
import { ApprovalsView } from '../views/Approvals.tsx';
import { AuditLogView } from '../views/AuditLogView.tsx';
import { invitationFrom } from '../views/invitation.ts';
import { MasterWalletView } from '../views/MasterWalletView.tsx';
import { MembersView } from '../views/MembersView.tsx';
import { OverviewView } from '../views/OverviewView.tsx';
import { SecurityView } from '../views/security/SecurityView.tsx';
import { WebhooksView } from '../views/WebhooksView.tsx';
import { Account, Brand } from './TopBar.tsx';

export function Shell() {
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

// "Connect your agent" (issue 30): copy-paste set-up for the MCP hosts and the agent frameworks, pointing at this
// service. The key is a placeholder: it was shown once, when it was created (API keys tab), and is never shown again.
import type { AgentWallet } from '@agent-wallet/sdk';
import { CopyButton } from '../components/CopyButton.tsx';
import { Link } from '../components/Link.tsx';
import { walletName } from '../format.ts';
import { agentPath } from '../router.ts';
import { type ConnectSetup, frameworkSetups, hostSetups, KEY_PLACEHOLDER, mcpUrl } from './connect.ts';

export function ConnectPanel({
  wallet,
  origin = window.location.origin,
}: {
  wallet: AgentWallet;
  origin?: string;
}) {
  const url = mcpUrl(origin);
  return (
    <div className="card connect" data-testid="connect-panel">
      <h2>Connect your agent</h2>
      <p>
        Agents reach <span className="user-text">{walletName(wallet.label)}</span> over MCP (Streamable HTTP)
        at <code data-testid="connect-url">{url}</code> <CopyButton text={url} label="Copy the MCP URL" />{' '}
        with one of this wallet’s API keys as a bearer token. Replace <code>{KEY_PLACEHOLDER}</code> with the
        key: it was shown once, when it was created — create one under{' '}
        <Link to={agentPath(wallet.id, 'keys')}>API keys</Link> if you no longer have it.
      </p>
      <p className="hint">
        Sign-in with OAuth, which remote hosts such as claude.ai and ChatGPT need, is not available yet:
        connect with a key. Write tools need an <code>idempotencyKey</code> (reused on a retry, so a retry
        never pays twice).
      </p>
      <h3>Agent hosts</h3>
      {hostSetups(origin).map((setup) => (
        <SetupBlock key={setup.id} setup={setup} />
      ))}
      <h3>Agent frameworks</h3>
      <p className="hint">The same code the service’s tests run against a real server, for each framework.</p>
      {frameworkSetups(origin).map((setup) => (
        <SetupBlock key={setup.id} setup={setup} />
      ))}
    </div>
  );
}

function SetupBlock({ setup }: { setup: ConnectSetup }) {
  const headingId = `connect-${setup.id}`;
  return (
    <section className="connect-setup" aria-labelledby={headingId} data-testid={`connect-${setup.id}`}>
      <div className="title-row">
        <h4 id={headingId}>{setup.name}</h4>
        <CopyButton text={setup.code} label={`Copy the ${setup.name} set-up`} />
      </div>
      <p className="hint">In {setup.where}.</p>
      <pre className="code-block">
        <code>{setup.code}</code>
      </pre>
    </section>
  );
}

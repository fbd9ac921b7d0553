// "Connect your agent" (issue 30): copy-paste set-up for the MCP hosts and the agent frameworks, pointing at this
// service. First the way that needs no key (the host signs in by OAuth and the owner allows it on the consent
// page), then the key-based set-ups, where the key is a placeholder: it was shown once, when it was created (API
// keys tab), and is never shown again.
import type { AgentWallet } from '@agent-wallet/sdk';
import { CopyButton } from '../components/CopyButton.tsx';
import { Link } from '../components/Link.tsx';
import { walletName } from '../format.ts';
import { agentPath } from '../router.ts';
import {
  type ConnectSetup,
  frameworkSetups,
  hostSetups,
  isLocalOrigin,
  KEY_PLACEHOLDER,
  mcpUrl,
  type RemoteSetup,
  remoteSetups,
} from './connect.ts';

export function ConnectPanel({
  wallet,
  origin = window.location.origin,
}: {
  wallet: AgentWallet;
  origin?: string;
}) {
  const url = mcpUrl(origin);
  const keysLink = <Link to={agentPath(wallet.id, 'keys')}>API keys</Link>;
  return (
    <div className="card connect" data-testid="connect-panel">
      <h2>Connect your agent</h2>
      <p>
        Agents reach <span className="user-text">{walletName(wallet.label)}</span> over MCP (Streamable HTTP)
        at <code data-testid="connect-url">{url}</code> <CopyButton text={url} label="Copy the MCP URL" />
      </p>
      <section aria-labelledby="connect-oauth" data-testid="connect-oauth">
        <h3 id="connect-oauth">Add by URL (OAuth)</h3>
        <p className="hint">
          The app needs only the URL. It signs in with this dashboard, where you choose this wallet and what
          the app may do; no key to copy. Each app you allow is listed under {keysLink} as a connected app:
          revoke it there.
        </p>
        {isLocalOrigin(origin) && (
          <p className="warning" data-testid="connect-local">
            This dashboard is at a local address. claude.ai and ChatGPT connect from their own servers and
            cannot reach it: run the service at a public https address for them. Claude Code, Cursor and VS
            Code on this computer can connect as it is.
          </p>
        )}
        {remoteSetups(origin).map((setup) => (
          <RemoteBlock key={setup.id} setup={setup} />
        ))}
      </section>
      <section aria-labelledby="connect-key" data-testid="connect-key">
        <h3 id="connect-key">With an API key</h3>
        <p className="hint">
          For a host or framework without sign-in: it sends one of this wallet’s API keys as a bearer token.
          Replace <code>{KEY_PLACEHOLDER}</code> with the key: it was shown once, when it was created — create
          one under {keysLink} if you no longer have it. Write tools need an <code>idempotencyKey</code>{' '}
          (reused on a retry, so a retry never pays twice).
        </p>
        <h4>Agent hosts</h4>
        {hostSetups(origin).map((setup) => (
          <SetupBlock key={setup.id} setup={setup} />
        ))}
        <h4>Agent frameworks</h4>
        <p className="hint">
          The same code the service’s tests run against a real server, for each framework.
        </p>
        {frameworkSetups(origin).map((setup) => (
          <SetupBlock key={setup.id} setup={setup} />
        ))}
      </section>
    </div>
  );
}

/** One host that connects by URL: its steps, and what to copy when it takes a command or a file. */
function RemoteBlock({ setup }: { setup: RemoteSetup }) {
  const headingId = `connect-${setup.id}-title`;
  return (
    <section className="connect-setup" aria-labelledby={headingId} data-testid={`connect-${setup.id}`}>
      <div className="title-row">
        <h4 id={headingId}>{setup.name}</h4>
        {setup.code !== undefined && (
          <CopyButton text={setup.code} label={`Copy the ${setup.name} OAuth set-up`} />
        )}
      </div>
      <ol className="connect-steps">
        {setup.steps.map((step) => (
          <li key={step}>{step}</li>
        ))}
      </ol>
      {setup.code !== undefined && (
        <>
          {setup.where !== undefined && <p className="hint">In {setup.where}:</p>}
          <pre className="code-block">
            <code>{setup.code}</code>
          </pre>
        </>
      )}
    </section>
  );
}

function SetupBlock({ setup }: { setup: ConnectSetup }) {
  const headingId = `connect-${setup.id}`;
  return (
    <section className="connect-setup" aria-labelledby={headingId} data-testid={`connect-${setup.id}`}>
      <div className="title-row">
        <h5 id={headingId}>{setup.name}</h5>
        <CopyButton text={setup.code} label={`Copy the ${setup.name} set-up`} />
      </div>
      <p className="hint">In {setup.where}.</p>
      <pre className="code-block">
        <code>{setup.code}</code>
      </pre>
    </section>
  );
}

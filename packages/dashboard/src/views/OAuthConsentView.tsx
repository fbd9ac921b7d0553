// The consent page of OAuth for agent hosts (contract section 12): an app (claude.ai, ChatGPT, Claude Code,
// Cursor, VS Code…) sent the owner's browser here to ask for one agent wallet. The page names the app and, above
// all, the host it will send the browser back to (the phishing check), lets the owner choose the wallet and the
// scopes, and sends Allow (through step-up, like creating an API key) or Deny; the server answers where the
// browser goes next. A request the server calls invalid is shown and never redirected anywhere.
import type { Scope } from '@agent-wallet/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useMemo, useRef, useState } from 'react';
import { ApiError } from '../api/errors.ts';
import type { AuthorizeRequest, ConsentDecision, ConsentPreview } from '../api/oauth.ts';
import { useApp, useCan } from '../app-context.ts';
import { LoadError, Loading } from '../components/Common.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { TextField } from '../components/TextField.tsx';
import { walletName } from '../format.ts';
import { addWallet, useAction, useAgentWallets, useResource } from '../queries.ts';
import { navigate } from '../router.ts';
import { labelError } from './AgentWalletsView.tsx';
import {
  allowProblem,
  CONSENT_PATH,
  clientIdentityWords,
  consentHeading,
  consentStage,
  parseAuthorizeQuery,
  requestedScopes,
  SCOPE_WORDS,
  SCOPES,
  safeRedirect,
  toggleScope,
} from './oauthConsent.ts';

/** Sends the browser to the app (a full navigation: the app's redirect URI is another site or another program). */
function leavePage(url: string) {
  window.location.href = url;
}

export function OAuthConsentView({
  search,
  leave = leavePage,
}: {
  search: string;
  leave?: (url: string) => void;
}) {
  const { client, role } = useApp();
  const parsed = useMemo(() => parseAuthorizeQuery(search), [search]);
  // Keyed by the whole query: the same request is previewed once, another one afresh.
  const preview = useResource(
    parsed.ok ? ['oauthPreview', search] : null,
    () => client.oauth.preview(parsed.ok ? parsed.request : {}),
    Number.POSITIVE_INFINITY,
  );
  const stage = consentStage({ parsed, role, preview: preview.data, previewError: preview.error });

  return (
    <div className="auth-card consent-card" data-testid="consent" data-stage={stage.stage}>
      <p className="brand-line">Agent Wallet</p>
      {stage.stage === 'invalid' && (
        <>
          <PageHeading title="This request cannot be used">This request cannot be used</PageHeading>
          <p className="error-message" role="alert" data-testid="consent-invalid">
            {stage.message}
          </p>
        </>
      )}
      {stage.stage === 'loading' && (
        <>
          <PageHeading title="Connect an app">Connect an app</PageHeading>
          <Loading />
        </>
      )}
      {stage.stage === 'failed' && (
        <>
          <PageHeading title="Connect an app">Connect an app</PageHeading>
          <LoadError error={stage.error} onRetry={preview.reload} />
        </>
      )}
      {stage.stage === 'refused' && parsed.ok && (
        <>
          <Heading preview={stage.preview} />
          {stage.preview !== null && <ClientFacts client={stage.preview.client} />}
          <p className="notice" data-testid="consent-role">
            {stage.why}
          </p>
          <Decision request={parsed.request} preview={stage.preview} mayAllow={false} leave={leave} />
        </>
      )}
      {stage.stage === 'ready' && parsed.ok && (
        <>
          <Heading preview={stage.preview} />
          <ClientFacts client={stage.preview.client} />
          <Decision request={parsed.request} preview={stage.preview} mayAllow leave={leave} />
        </>
      )}
      <SignedInAs search={search} />
    </div>
  );
}

function Heading({ preview }: { preview: ConsentPreview | null }) {
  const title = preview === null ? 'Connect an app' : consentHeading(preview.client.name);
  return <PageHeading title={title}>{title}</PageHeading>;
}

/** Who asks and where the browser goes back to: the name alone is the app's own claim, the host is not. */
function ClientFacts({ client }: { client: ConsentPreview['client'] }) {
  return (
    <div className="consent-client" data-testid="consent-client">
      <p className="consent-who">
        <strong className="user-text">{client.name}</strong> at{' '}
        <strong className="user-text" data-testid="consent-redirect-host">
          {client.redirectHost}
        </strong>{' '}
        wants to use an agent wallet.
      </p>
      <p className="hint" data-testid="consent-client-kind" data-metadata-document={client.metadataDocument}>
        {clientIdentityWords(client)} If you did not just ask to connect this app, deny.
      </p>
    </div>
  );
}

/**
 * The owner's choice (wallet and scopes) and the two buttons. Without the role to allow, only Deny. Once the
 * server has answered, the buttons go: the code is single use, and the browser is on its way to the app.
 */
function Decision({
  request,
  preview,
  mayAllow,
  leave,
}: {
  request: AuthorizeRequest;
  preview: ConsentPreview | null;
  mayAllow: boolean;
  leave: (url: string) => void;
}) {
  const { client } = useApp();
  const [walletId, setWalletId] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(() => requestedScopes(preview?.scopes ?? []));
  const [tried, setTried] = useState(false);
  const [sent, setSent] = useState<ConsentDecision['decision'] | null>(null);
  const action = useAction();
  const problem = allowProblem(walletId, scopes);
  const problemId = useId();

  async function decide(decision: ConsentDecision) {
    await action.run(async () => {
      const answer = await client.oauth.consent(request, decision);
      const to = safeRedirect(answer.redirectTo);
      if (to === null) throw new ApiError('BAD_RESPONSE', 200, '');
      setSent(decision.decision);
      leave(to);
    });
  }

  if (sent !== null) return <Sent decision={sent} name={preview?.client.name ?? 'the app'} />;
  const allow = () => {
    setTried(true);
    if (problem === null) void decide({ decision: 'allow', walletId, scopes });
  };
  return (
    <section className="consent-decision" aria-label="Your decision">
      {mayAllow && preview !== null && (
        <>
          <WalletChoice walletId={walletId} onChange={setWalletId} />
          <ScopeChoice asked={preview.scopes} chosen={scopes} onChange={setScopes} />
        </>
      )}
      {tried && problem !== null && (
        <p className="field-error" id={problemId} role="alert">
          {problem}
        </p>
      )}
      <ErrorMessage error={action.error} />
      <div className="actions consent-actions">
        {mayAllow && (
          <button
            type="button"
            className="button primary"
            onClick={allow}
            disabled={action.busy}
            aria-describedby={tried && problem !== null ? problemId : undefined}
          >
            Allow
          </button>
        )}
        <button
          type="button"
          className="button secondary"
          onClick={() => void decide({ decision: 'deny' })}
          disabled={action.busy}
        >
          Deny
        </button>
      </div>
    </section>
  );
}

function Sent({ decision, name }: { decision: ConsentDecision['decision']; name: string }) {
  return (
    <p className="notice" role="status" data-testid="consent-sent" data-decision={decision}>
      {decision === 'allow' ? `You allowed ${name}.` : `You denied ${name}.`} Taking you back to the app. If
      nothing happens, you can close this window.
    </p>
  );
}

/** The agent wallet the app gets: one of the organization's, or a new one made here. */
function WalletChoice({ walletId, onChange }: { walletId: string; onChange: (walletId: string) => void }) {
  const wallets = useAgentWallets();
  const mayCreate = useCan()('createWallet');
  const id = useId();
  const items = wallets.data?.items ?? [];
  return (
    <div className="consent-wallet">
      <div className="field">
        <label htmlFor={id}>Agent wallet</label>
        <select
          id={id}
          value={walletId}
          onChange={(event) => onChange(event.target.value)}
          aria-describedby={`${id}-hint`}
        >
          <option value="">{items.length === 0 ? 'No agent wallets yet' : 'Choose a wallet…'}</option>
          {items.map((wallet) => (
            <option key={wallet.id} value={wallet.id}>
              {walletName(wallet.label)}
              {wallet.frozen ? ' (frozen)' : ''}
            </option>
          ))}
        </select>
        <p className="hint" id={`${id}-hint`}>
          The app acts for this wallet only, within its policies and limits, like one of its API keys.
        </p>
      </div>
      {wallets.error !== undefined && <LoadError error={wallets.error} onRetry={wallets.reload} />}
      {mayCreate && <NewWalletForm onCreated={onChange} />}
    </div>
  );
}

/** A new, empty agent wallet for this app (POST /agent-wallets), chosen as soon as it exists. */
function NewWalletForm({ onCreated }: { onCreated: (walletId: string) => void }) {
  const { sdk } = useApp();
  const qc = useQueryClient();
  const [label, setLabel] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const action = useAction();
  const inputRef = useRef<HTMLInputElement>(null);
  const error = labelError(label);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (error !== null) return inputRef.current?.focus();
    const failed = await action.run(async () => {
      const wallet = await sdk.agentWallets.create({ label: label.trim() });
      addWallet(qc, wallet);
      onCreated(wallet.id);
    });
    if (failed === null) {
      setLabel('');
      setSubmitted(false);
    }
  }

  return (
    <form
      className="inline-form consent-new-wallet"
      onSubmit={onSubmit}
      noValidate
      aria-label="New agent wallet"
    >
      <TextField
        label="Or create a new wallet"
        value={label}
        onChange={setLabel}
        inputRef={inputRef}
        error={submitted ? error : null}
        hint="A name for it, e.g. Claude. It starts empty: fund it from the master wallet."
        maxLength={200}
        autoComplete="off"
      />
      <ErrorMessage error={action.error} />
      <button type="submit" className="button secondary small" disabled={action.busy}>
        {action.busy ? 'Creating…' : 'Create wallet'}
      </button>
    </form>
  );
}

/** The scopes the app asked for, ticked; one it did not ask for is shown but cannot be given (least privilege). */
function ScopeChoice({
  asked,
  chosen,
  onChange,
}: {
  asked: readonly Scope[];
  chosen: readonly Scope[];
  onChange: (scopes: Scope[]) => void;
}) {
  const id = useId();
  return (
    <fieldset className="field consent-scopes">
      <legend>What the app may do</legend>
      {SCOPES.map((scope) => {
        const requested = asked.includes(scope);
        return (
          <div key={scope} className="consent-scope">
            <label className="checkbox">
              <input
                type="checkbox"
                checked={chosen.includes(scope)}
                disabled={!requested}
                onChange={(event) => onChange(toggleScope(chosen, scope, event.target.checked))}
                aria-describedby={`${id}-${scope}`}
              />
              <span>{SCOPE_WORDS[scope].name}</span>
            </label>{' '}
            <span className="hint" id={`${id}-${scope}`}>
              — {SCOPE_WORDS[scope].detail}
              {requested ? '' : ' (the app did not ask for this)'}
            </span>
          </div>
        );
      })}
    </fieldset>
  );
}

/** Who is deciding, and a way to decide as someone else without losing the app's request. */
function SignedInAs({ search }: { search: string }) {
  const { session, logout } = useApp();
  const [busy, setBusy] = useState(false);
  return (
    <p className="hint consent-account">
      Logged in as <span className="user-text">{session.user.email}</span>.{' '}
      <button
        type="button"
        className="button link small"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          await logout();
          // logout() goes to /login; the app's request comes back with the login screen.
          navigate(`${CONSENT_PATH}${search === '' ? '' : `?${search}`}`, { replace: true });
        }}
      >
        Use another account
      </button>
    </p>
  );
}

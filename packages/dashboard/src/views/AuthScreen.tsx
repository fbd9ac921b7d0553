import type { Session as AuthResult } from '@agent-wallet/sdk';
import { type FormEvent, useRef, useState } from 'react';
import type { ApiClient } from '../api/client.ts';
import type { MfaChallenge } from '../api/custody.ts';
import { toApiError } from '../api/errors.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Link } from '../components/Link.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { PasswordMeter, usePasswordStrength } from '../components/PasswordMeter.tsx';
import { TextField } from '../components/TextField.tsx';
import { weakPasswordError } from '../passwordStrength.ts';
import { useAction } from '../queries.ts';
import { answerWithPasskey } from '../webauthn.ts';
import { emailError, NEW_PASSWORD_HINT, passwordError } from './authForm.ts';
import type { InvitationLink } from './invitation.ts';
import { codeFieldWords, mfaChallengeOf, stepUpRefusal } from './security.ts';

interface AuthScreenProps {
  client: ApiClient;
  mode: 'login' | 'signup';
  notice: string | null;
  /** Signing up through an invitation link: the organization's invited email, and the token that joins it. */
  invitation?: InvitationLink | null;
  onAuthenticated: (result: AuthResult) => void;
}

/** Signs up (through an invitation or not) or logs in; a login to an account with a second factor answers its challenge. */
async function authenticate(
  client: AuthScreenProps['client'],
  form: { signup: boolean; invitation: InvitationLink | null; email: string; password: string },
): Promise<{ result: AuthResult } | { challenge: MfaChallenge }> {
  const { email, password } = form;
  if (form.signup && form.invitation !== null)
    return { result: await client.org.signupWithInvitation(email, password, form.invitation.token) };
  if (form.signup) return { result: await client.sdk.signup({ email, password }) };
  try {
    return { result: await client.sdk.login({ email, password }) };
  } catch (caught) {
    const challenge = mfaChallengeOf(toApiError(caught));
    if (challenge === null) throw caught;
    return { challenge };
  }
}

export function AuthScreen({ client, mode, notice, invitation = null, onAuthenticated }: AuthScreenProps) {
  const [email, setEmail] = useState(invitation?.email ?? '');
  const [password, setPassword] = useState('');
  const [submitted, setSubmitted] = useState(false);
  // The password was right and the account has a second factor: the login's second step.
  const [challenge, setChallenge] = useState<MfaChallenge | null>(null);
  const [ended, setEnded] = useState<string | null>(null);
  const action = useAction();
  const emailRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  const signup = mode === 'signup';

  const emailProblem = emailError(email);
  // Only a new password is estimated (and its dictionaries fetched): a login takes any password.
  const strength = usePasswordStrength(signup ? password : '');
  const passwordProblem = passwordError(password, signup) ?? (signup ? weakPasswordError(strength) : null);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (emailProblem !== null) return emailRef.current?.focus();
    if (passwordProblem !== null) return passwordRef.current?.focus();
    setEnded(null);
    await action.run(async () => {
      const answer = await authenticate(client, { signup, invitation, email: email.trim(), password });
      if ('challenge' in answer) {
        setPassword('');
        setChallenge(answer.challenge);
      } else onAuthenticated(answer.result);
    });
  }

  if (challenge !== null) {
    return (
      <SecondStep
        client={client}
        challenge={challenge}
        onAuthenticated={onAuthenticated}
        onRestart={(message) => {
          setChallenge(null);
          setSubmitted(false);
          setEnded(message);
        }}
      />
    );
  }

  const title = signup ? (invitation !== null ? 'Join your organization' : 'Create an account') : 'Log in';
  return (
    <main id="main" className="auth-page" tabIndex={-1}>
      <div className="auth-card">
        <p className="brand-line">Agent Wallet</p>
        <PageHeading title={title}>{title}</PageHeading>
        <AuthNotices notice={ended ?? notice} invitation={signup ? invitation : null} />
        <form onSubmit={onSubmit} noValidate aria-label={title}>
          <TextField
            label="Email"
            type="email"
            autoComplete="email"
            value={email}
            onChange={setEmail}
            inputRef={emailRef}
            error={submitted ? emailProblem : null}
            name="email"
          />
          <TextField
            label="Password"
            type="password"
            autoComplete={signup ? 'new-password' : 'current-password'}
            value={password}
            onChange={setPassword}
            inputRef={passwordRef}
            error={submitted ? passwordProblem : null}
            hint={signup ? NEW_PASSWORD_HINT : undefined}
            name="password"
          />
          {signup && <PasswordMeter strength={strength} />}
          <ErrorMessage error={action.error} />
          <button type="submit" className="button primary wide" disabled={action.busy}>
            {action.busy
              ? 'Please wait…'
              : signup
                ? invitation !== null
                  ? 'Join'
                  : 'Create account'
                : 'Log in'}
          </button>
        </form>
        <SwitchMode signup={signup} />
      </div>
    </main>
  );
}

/** What the page says above the form: why the user is here again, and the invitation they follow. */
function AuthNotices({ notice, invitation }: { notice: string | null; invitation: InvitationLink | null }) {
  return (
    <>
      {notice !== null && (
        <p className="notice" role="status" data-testid="auth-notice">
          {notice}
        </p>
      )}
      {invitation !== null && (
        <p className="notice" data-testid="invitation-notice">
          You were invited to an organization on Agent Wallet. Choose a password to join it
          {invitation.email === '' ? ' with the email address the invitation was sent to' : ''}.
        </p>
      )}
    </>
  );
}

/**
 * A login's second step: a code (TOTP or recovery) or a passkey, for the mfaToken the password step returned
 * (single use, 5 minutes; five wrong codes end it, and then the login starts again).
 */
function SecondStep({
  client,
  challenge,
  onAuthenticated,
  onRestart,
}: {
  client: ApiClient;
  challenge: MfaChallenge;
  onAuthenticated: (result: AuthResult) => void;
  onRestart: (message: string | null) => void;
}) {
  const { mfaToken, methods } = challenge;
  const code = codeFieldWords(methods);
  const passkey = methods.includes('passkey');
  const [value, setValue] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const action = useAction();
  const inputRef = useRef<HTMLInputElement>(null);

  async function finish(method: 'totp' | 'passkey', run: () => Promise<AuthResult>) {
    await action.run(async () => {
      let result: AuthResult;
      try {
        result = await run();
      } catch (caught) {
        const error = toApiError(caught);
        if (error.code === 'UNAUTHORIZED') {
          onRestart(
            'That login attempt has ended (too many wrong codes, or 5 minutes passed). Log in again.',
          );
          return;
        }
        throw stepUpRefusal(error, method);
      }
      onAuthenticated(result);
    });
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    const typed = value.replace(/\s+/g, '');
    if (typed === '') return inputRef.current?.focus();
    void finish('totp', () => client.custody.loginWithCode(mfaToken, typed));
  }

  function onPasskey() {
    void finish('passkey', async () => {
      const options = await client.custody.passkeyLoginOptions(mfaToken);
      return client.custody.loginWithPasskey(mfaToken, await answerWithPasskey(options));
    });
  }

  const title = 'Two-step verification';
  return (
    <main id="main" className="auth-page" tabIndex={-1}>
      <div className="auth-card">
        <p className="brand-line">Agent Wallet</p>
        <PageHeading title={title}>{title}</PageHeading>
        <p>Your password is right. Now confirm it is you with your second factor.</p>
        {passkey && (
          <div className="actions">
            <button type="button" className="button primary wide" onClick={onPasskey} disabled={action.busy}>
              Use a passkey
            </button>
          </div>
        )}
        {code !== null && (
          <form onSubmit={onSubmit} noValidate aria-label="Enter a code">
            {passkey && <p className="hint">Or enter a code:</p>}
            <TextField
              label={code.label}
              autoComplete="one-time-code"
              spellCheck={false}
              value={value}
              onChange={setValue}
              inputRef={inputRef}
              hint={code.hint}
              error={submitted && value.trim() === '' ? 'Enter a code.' : null}
              name="code"
              autoFocus={!passkey}
            />
            <button type="submit" className="button primary wide" disabled={action.busy}>
              {action.busy ? 'Checking…' : 'Verify'}
            </button>
          </form>
        )}
        <ErrorMessage error={action.error} />
        <p className="switch-mode">
          <button type="button" className="button secondary small" onClick={() => onRestart(null)}>
            Start over
          </button>
        </p>
      </div>
    </main>
  );
}

/** The other way in: log in instead of signing up, or the other way round. */
function SwitchMode({ signup }: { signup: boolean }) {
  return (
    <p className="switch-mode">
      {signup ? (
        <>
          Already have an account? <Link to="/login">Log in</Link>
        </>
      ) : (
        <>
          New here? <Link to="/signup">Create an account</Link>
          <br />
          <span className="hint" data-testid="forgot-password">
            Forgot your password? Ask the operator of this service for a reset link.
          </span>
        </>
      )}
    </p>
  );
}

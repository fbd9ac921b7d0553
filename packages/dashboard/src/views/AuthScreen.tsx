import type { Session as AuthResult, ManagementClient } from '@agent-wallet/sdk';
import { type FormEvent, useRef, useState } from 'react';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Link } from '../components/Link.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { TextField } from '../components/TextField.tsx';
import { useAction } from '../queries.ts';
import { emailError, PASSWORD_MAX, PASSWORD_MIN, passwordError } from './authForm.ts';

interface AuthScreenProps {
  sdk: ManagementClient;
  mode: 'login' | 'signup';
  notice: string | null;
  onAuthenticated: (result: AuthResult) => void;
}

export function AuthScreen({ sdk, mode, notice, onAuthenticated }: AuthScreenProps) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const action = useAction();
  const emailRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  const signup = mode === 'signup';

  const emailProblem = emailError(email);
  const passwordProblem = passwordError(password, signup);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (emailProblem !== null) return emailRef.current?.focus();
    if (passwordProblem !== null) return passwordRef.current?.focus();
    await action.run(async () => {
      const result = signup
        ? await sdk.signup({ email: email.trim(), password })
        : await sdk.login({ email: email.trim(), password });
      onAuthenticated(result);
    });
  }

  const title = signup ? 'Create an account' : 'Log in';
  return (
    <main id="main" className="auth-page" tabIndex={-1}>
      <div className="auth-card">
        <p className="brand-line">Agent Wallet</p>
        <PageHeading title={title}>{title}</PageHeading>
        {notice !== null && (
          <p className="notice" role="status" data-testid="auth-notice">
            {notice}
          </p>
        )}
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
            hint={signup ? `${PASSWORD_MIN} to ${PASSWORD_MAX} characters.` : undefined}
            name="password"
          />
          <ErrorMessage error={action.error} />
          <button type="submit" className="button primary wide" disabled={action.busy}>
            {action.busy ? 'Please wait…' : signup ? 'Create account' : 'Log in'}
          </button>
        </form>
        <SwitchMode signup={signup} />
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
        </>
      )}
    </p>
  );
}

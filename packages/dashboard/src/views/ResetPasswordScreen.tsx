// A forgotten password: the page the operator's reset link opens (`agent-wallet reset-password --email …` prints
// `/reset-password#pwr_…`). The token is in the fragment, which browsers never send to a server or in a Referer;
// the page takes it out of the address bar at once, so it stays in neither history nor a screenshot.
import { type FormEvent, useRef, useState } from 'react';
import type { ApiClient } from '../api/client.ts';
import { toApiError } from '../api/errors.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Link } from '../components/Link.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { PasswordMeter, usePasswordStrength } from '../components/PasswordMeter.tsx';
import { TextField } from '../components/TextField.tsx';
import { weakPasswordError } from '../passwordStrength.ts';
import { useAction } from '../queries.ts';
import { NEW_PASSWORD_HINT, passwordError } from './authForm.ts';

export const RESET_PATH = '/reset-password';

/** Pure: the reset token of a link's fragment (`#pwr_…`), or null. */
export function resetTokenOf(hash: string): string | null {
  const token = hash.replace(/^#/, '').trim();
  return /^pwr_[0-9A-Za-z]{40}$/.test(token) ? token : null;
}

function takeTokenFromAddress(): string | null {
  const token = resetTokenOf(window.location.hash);
  if (window.location.hash !== '') history.replaceState(null, '', window.location.pathname);
  return token;
}

export function ResetPasswordScreen({ client }: { client: ApiClient }) {
  const [token] = useState(takeTokenFromAddress);
  const [password, setPassword] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [done, setDone] = useState(false);
  const [refused, setRefused] = useState(false);
  const action = useAction();
  const passwordRef = useRef<HTMLInputElement>(null);
  const strength = usePasswordStrength(password);
  const problem = passwordError(password, true) ?? weakPasswordError(strength);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (problem !== null || token === null) return passwordRef.current?.focus();
    await action.run(async () => {
      try {
        await client.custody.resetPassword(token, password);
        setDone(true);
      } catch (caught) {
        if (toApiError(caught).code !== 'UNAUTHORIZED') throw caught;
        setRefused(true);
      }
    });
  }

  const title = 'Set a new password';
  return (
    <main id="main" className="auth-page" tabIndex={-1}>
      <div className="auth-card" data-testid="reset-password">
        <p className="brand-line">Agent Wallet</p>
        <PageHeading title={title}>{title}</PageHeading>
        {done ? (
          <p className="notice" role="status" data-testid="reset-done">
            Your password is set, and every session of your account has ended. <Link to="/">Log in</Link> with
            it (a second factor, if you have one, is still asked for).
          </p>
        ) : token === null || refused ? (
          <p className="error-message" role="alert" data-testid="reset-invalid">
            This reset link is unknown, used or expired (a link works once, for an hour, and only the newest
            one). Ask the operator of this service for a new one.
          </p>
        ) : (
          <form onSubmit={onSubmit} noValidate aria-label={title}>
            <TextField
              label="New password"
              type="password"
              autoComplete="new-password"
              value={password}
              onChange={setPassword}
              inputRef={passwordRef}
              error={submitted ? problem : null}
              hint={NEW_PASSWORD_HINT}
              name="password"
            />
            <PasswordMeter strength={strength} />
            <ErrorMessage error={action.error} />
            <button type="submit" className="button primary wide" disabled={action.busy}>
              {action.busy ? 'Please wait…' : 'Set the password'}
            </button>
          </form>
        )}
      </div>
    </main>
  );
}

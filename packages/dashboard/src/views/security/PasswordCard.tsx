// Change the password (a step-up may be asked first); every other session is logged out.
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import { toApiError } from '../../api/errors.ts';
import { useApp } from '../../app-context.ts';
import { StatusNote } from '../../components/Common.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { PasswordMeter, usePasswordStrength } from '../../components/PasswordMeter.tsx';
import { TextField } from '../../components/TextField.tsx';
import { plural } from '../../format.ts';
import { weakPasswordError } from '../../passwordStrength.ts';
import { K, useAction } from '../../queries.ts';
import { NEW_PASSWORD_HINT, passwordError } from '../authForm.ts';
import { stepUpRefusal } from '../security.ts';

/** The password change (a step-up refusal in words): how many other sessions it ended, or null when refused. */
function useChangePassword(action: ReturnType<typeof useAction>) {
  const { client } = useApp();
  const qc = useQueryClient();
  return async (current: string, next: string): Promise<number | null> => {
    let ended = 0;
    const error = await action.run(async () => {
      try {
        ended = (await client.custody.changePassword(current, next)).endedSessions;
      } catch (caught) {
        throw stepUpRefusal(toApiError(caught), 'password');
      }
    });
    if (error !== null) return null;
    void qc.invalidateQueries({ queryKey: K.sessions });
    void qc.invalidateQueries({ queryKey: K.securityEventsAll });
    return ended;
  };
}

export function PasswordCard() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const action = useAction();
  const change = useChangePassword(action);
  const currentRef = useRef<HTMLInputElement>(null);
  const nextRef = useRef<HTMLInputElement>(null);
  const repeatRef = useRef<HTMLInputElement>(null);
  const currentProblem = current === '' ? 'Enter your current password.' : null;
  const strength = usePasswordStrength(next);
  const nextProblem =
    passwordError(next, true) ??
    (next === current ? 'Choose a password other than the current one.' : weakPasswordError(strength));
  const repeatProblem = repeat === next ? null : 'The two new passwords differ.';

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    setNote(null);
    if (currentProblem !== null) return currentRef.current?.focus();
    if (nextProblem !== null) return nextRef.current?.focus();
    if (repeatProblem !== null) return repeatRef.current?.focus();
    const ended = await change(current, next);
    if (ended === null) return;
    setCurrent('');
    setNext('');
    setRepeat('');
    setSubmitted(false);
    setNote(
      ended > 0
        ? `Your password is changed; ${plural(ended, 'other session')} logged out.`
        : 'Your password is changed.',
    );
  }

  return (
    <section className="card" aria-labelledby="password-title">
      <h2 id="password-title">Change password</h2>
      <form className="stack-form" onSubmit={onSubmit} noValidate aria-label="Change password">
        <TextField
          label="Current password"
          type="password"
          autoComplete="current-password"
          value={current}
          onChange={setCurrent}
          inputRef={currentRef}
          error={submitted ? currentProblem : null}
        />
        <TextField
          label="New password"
          type="password"
          autoComplete="new-password"
          value={next}
          onChange={setNext}
          inputRef={nextRef}
          hint={`${NEW_PASSWORD_HINT} Every other session is logged out.`}
          error={submitted ? nextProblem : null}
        />
        <PasswordMeter strength={strength} />
        <TextField
          label="Repeat the new password"
          type="password"
          autoComplete="new-password"
          value={repeat}
          onChange={setRepeat}
          inputRef={repeatRef}
          error={submitted ? repeatProblem : null}
        />
        <button type="submit" className="button primary" disabled={action.busy}>
          {action.busy ? 'Changing…' : 'Change password'}
        </button>
        <ErrorMessage error={action.error} />
        <StatusNote text={note} />
      </form>
    </section>
  );
}

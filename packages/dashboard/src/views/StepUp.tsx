// The one step-up dialog. Any request the server refuses with 403 STEP_UP_REQUIRED (a withdrawal, a new factor, a
// password change, and with a factor active also keys, policy loosening, webhooks, approvals) is held by the HTTP
// adapter (api/client.ts) while this dialog asks the person to prove presence with one of the methods the server
// offered; once POST /auth/step-up succeeds the held request is sent again by itself. Cancel lets the refusal
// through to the form that sent it. Requests refused while the dialog is open wait for the same answer.
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { ApiError } from '../api/errors.ts';
import type { StepUpMethod } from '../api/stepUp.ts';
import { useApp } from '../app-context.ts';
import { Dialog } from '../components/Dialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { TextField } from '../components/TextField.tsx';
import { K, useAction } from '../queries.ts';
import { answerWithPasskey } from '../webauthn.ts';
import { codeFieldWords, stepUpRefusal } from './security.ts';

interface Asked {
  methods: StepUpMethod[];
  resolve: (proven: boolean) => void;
}

/** Mounted once for a logged-in person: registers the dialog as the adapter's way to ask. */
export function StepUpProvider() {
  const { client } = useApp();
  const [asked, setAsked] = useState<Asked | null>(null);
  const askedRef = useRef<Asked | null>(null);

  useEffect(() => {
    client.setStepUpAsk(
      (methods) =>
        new Promise<boolean>((resolve) => {
          const next = { methods, resolve };
          askedRef.current = next;
          setAsked(next);
        }),
    );
    return () => {
      client.setStepUpAsk(null);
      // Logged out with the dialog open: what waited is refused.
      askedRef.current?.resolve(false);
      askedRef.current = null;
    };
  }, [client]);

  if (asked === null) return null;
  const finish = (proven: boolean) => {
    askedRef.current = null;
    setAsked(null);
    asked.resolve(proven);
  };
  return (
    <StepUpDialog methods={asked.methods} onProven={() => finish(true)} onCancel={() => finish(false)} />
  );
}

function StepUpDialog({
  methods,
  onProven,
  onCancel,
}: {
  methods: StepUpMethod[];
  onProven: () => void;
  onCancel: () => void;
}) {
  const { client } = useApp();
  const qc = useQueryClient();
  const introId = useId();
  const passkey = methods.includes('passkey');
  const code = codeFieldWords(methods);
  const password = methods.includes('password');
  const action = useAction();
  const [value, setValue] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);

  async function prove(method: StepUpMethod, run: () => Promise<unknown>) {
    const error = await action.run(async () => {
      try {
        await run();
      } catch (caught) {
        throw caught instanceof ApiError ? stepUpRefusal(caught, method) : caught;
      }
    });
    if (error !== null) return;
    // A recovery code is spent, a passkey was just used: what the Security page shows of them moved.
    if (method !== 'password')
      void qc.invalidateQueries({ queryKey: method === 'passkey' ? K.passkeys : K.mfa });
    onProven();
  }

  function onPasskey() {
    void prove('passkey', async () => {
      const options = await client.custody.passkeyStepUpOptions();
      await client.custody.stepUp({ passkey: await answerWithPasskey(options) });
    });
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    const typed = value.trim();
    if (typed === '') return inputRef.current?.focus();
    if (password) void prove('password', () => client.custody.stepUp({ password: value }));
    else void prove('totp', () => client.custody.stepUp({ code: typed.replace(/\s+/g, '') }));
  }

  const fieldLabel = password ? 'Your password' : (code?.label ?? '');
  return (
    <Dialog title="Confirm it’s you" onClose={onCancel} describedBy={introId} className="step-up-dialog">
      <p id={introId}>
        This action needs a recent proof that it is really you. Confirm, and it carries on by itself.
      </p>
      {passkey && (
        <div className="actions">
          <button
            type="button"
            className="button primary"
            onClick={onPasskey}
            disabled={action.busy}
            data-autofocus
          >
            Use a passkey
          </button>
        </div>
      )}
      {(password || code !== null) && (
        <form
          onSubmit={onSubmit}
          noValidate
          className="stack-form"
          aria-label="Confirm with a code or password"
        >
          {passkey && <p className="hint">Or:</p>}
          <TextField
            label={fieldLabel}
            type={password ? 'password' : 'text'}
            autoComplete={password ? 'current-password' : 'one-time-code'}
            inputMode={password ? undefined : 'text'}
            spellCheck={false}
            value={value}
            onChange={setValue}
            inputRef={inputRef}
            hint={password ? undefined : code?.hint}
            error={
              submitted && value.trim() === '' ? `Enter ${password ? 'your password' : 'a code'}.` : null
            }
            data-autofocus={passkey ? undefined : true}
          />
          <button type="submit" className="button primary" disabled={action.busy}>
            {action.busy ? 'Checking…' : 'Confirm'}
          </button>
        </form>
      )}
      <ErrorMessage error={action.error} />
      <div className="dialog-actions">
        <button type="button" className="button secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}

// The authenticator app (TOTP): set it up with its QR code drawn here (never a third-party service), confirm it
// with a code, or turn it off.
import QRCode from 'qrcode';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import type { MfaStatus, TotpEnrolment } from '../../api/custody.ts';
import { useApp } from '../../app-context.ts';
import { Loading, StatusNote } from '../../components/Common.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { CopyButton } from '../../components/CopyButton.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { StatusTag } from '../../components/StatusTag.tsx';
import { TextField } from '../../components/TextField.tsx';
import { type ResourceState, useAction } from '../../queries.ts';
import { groupSecret } from '../security.ts';
import { useFactorChanged } from './factorChanged.ts';
import { RecoveryCodesDialog } from './RecoveryCodesDialog.tsx';

/** The QR code of an otpauth:// URL, drawn here (an SVG image, never a third-party service). */
function useQrCode(text: string | null): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    setUrl(null);
    if (text === null) return;
    let live = true;
    QRCode.toString(text, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }).then(
      (svg) => live && setUrl(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`),
      () => live && setUrl(null),
    );
    return () => {
      live = false;
    };
  }, [text]);
  return url;
}

export function TotpCard({ mfa }: { mfa: ResourceState<MfaStatus> }) {
  const { client } = useApp();
  const factorChanged = useFactorChanged();
  const [enrolment, setEnrolment] = useState<TotpEnrolment | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [removing, setRemoving] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const start = useAction();
  const active = mfa.data?.totp === true;

  async function onStart() {
    setNote(null);
    await start.run(async () => {
      setEnrolment(await client.custody.startTotp());
    });
  }

  return (
    <div className="subsection" data-testid="totp">
      <h3>
        Authenticator app <StatusTag status={active ? 'active' : 'off'} label={active ? 'on' : 'off'} />
      </h3>
      {active ? (
        <>
          <p className="hint">
            Codes from your authenticator app (TOTP) confirm your logins and sensitive actions.
          </p>
          <button type="button" className="button secondary" onClick={() => setRemoving(true)}>
            Turn off the authenticator app
          </button>
        </>
      ) : enrolment === null ? (
        <>
          <p className="hint">
            Use an app such as Google Authenticator, 1Password or Aegis: it shows a new 6-digit code every 30
            seconds.
          </p>
          <button type="button" className="button primary" onClick={onStart} disabled={start.busy}>
            {start.busy ? 'Starting…' : 'Set up an authenticator app'}
          </button>
          <ErrorMessage error={start.error} />
        </>
      ) : (
        <TotpEnrol
          enrolment={enrolment}
          onCancel={() => setEnrolment(null)}
          onConfirmed={(recoveryCodes) => {
            setEnrolment(null);
            setCodes(recoveryCodes);
            setNote('The authenticator app is on.');
            factorChanged();
          }}
        />
      )}
      <StatusNote text={note} />
      {codes !== null && <RecoveryCodesDialog codes={codes} onClose={() => setCodes(null)} />}
      {removing && (
        <ConfirmDialog
          title="Turn off the authenticator app?"
          confirmLabel="Turn off"
          danger
          onConfirm={async () => {
            await client.custody.removeTotp();
            setNote('The authenticator app is off.');
            factorChanged();
          }}
          onClose={() => setRemoving(false)}
        >
          <p>
            Its codes stop working at once. Without another factor, your password alone protects the account
            and your recovery codes are deleted.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}

function TotpEnrol({
  enrolment,
  onCancel,
  onConfirmed,
}: {
  enrolment: TotpEnrolment;
  onCancel: () => void;
  onConfirmed: (recoveryCodes: string[]) => void;
}) {
  const { client } = useApp();
  const qr = useQrCode(enrolment.otpauthUrl);
  const [code, setCode] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const action = useAction();
  const inputRef = useRef<HTMLInputElement>(null);
  const typed = code.replace(/\s+/g, '');
  const problem = /^[0-9]{6}$/.test(typed) ? null : 'Enter the 6-digit code the app shows now.';

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (problem !== null) return inputRef.current?.focus();
    let codes: string[] = [];
    const error = await action.run(async () => {
      codes = (await client.custody.confirmTotp(typed)).recoveryCodes;
    });
    if (error === null) onConfirmed(codes);
  }

  return (
    <div className="totp-enrol">
      <ol className="steps">
        <li>
          <p>Scan this QR code with your authenticator app.</p>
          {qr === null ? (
            <Loading what="Drawing the QR code…" />
          ) : (
            <img
              className="qr-code"
              src={qr}
              alt="QR code to scan with your authenticator app"
              width={200}
              height={200}
            />
          )}
          <p className="hint">
            Cannot scan it? Add an account by hand with this key (time-based):{' '}
            <code className="totp-secret" data-testid="totp-secret">
              {groupSecret(enrolment.secret)}
            </code>{' '}
            <CopyButton text={enrolment.secret} label="Copy the setup key" />
          </p>
        </li>
        <li>
          <form
            onSubmit={onSubmit}
            noValidate
            className="stack-form"
            aria-label="Confirm the authenticator app"
          >
            <TextField
              label="6-digit code from the app"
              value={code}
              onChange={setCode}
              inputRef={inputRef}
              inputMode="numeric"
              autoComplete="one-time-code"
              spellCheck={false}
              error={submitted ? problem : null}
            />
            <div className="actions">
              <button type="submit" className="button primary" disabled={action.busy}>
                {action.busy ? 'Checking…' : 'Turn on'}
              </button>
              <button type="button" className="button secondary" onClick={onCancel}>
                Cancel
              </button>
            </div>
            <ErrorMessage error={action.error} />
          </form>
        </li>
      </ol>
    </div>
  );
}

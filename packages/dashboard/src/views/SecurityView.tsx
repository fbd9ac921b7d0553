// The Security page (contract section 8): the second factor (an authenticator app with its QR code drawn here,
// recovery codes shown once; passkeys), where the account is logged in (end one session, or every other), the
// password, and recent security events. Adding or removing a factor and changing the password need a recent
// step-up: the step-up dialog (StepUp.tsx) appears by itself when the server asks for one.
import { useQueryClient } from '@tanstack/react-query';
import QRCode from 'qrcode';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import type { MfaStatus, Passkey, SecurityEventPage, SessionInfo, TotpEnrolment } from '../api/custody.ts';
import { toApiError } from '../api/errors.ts';
import { useApp } from '../app-context.ts';
import { LoadError, Loading, StatusNote } from '../components/Common.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { Dialog } from '../components/Dialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { Pagination } from '../components/Pagination.tsx';
import { PasswordMeter, usePasswordStrength } from '../components/PasswordMeter.tsx';
import { StatusTag } from '../components/StatusTag.tsx';
import { TextField } from '../components/TextField.tsx';
import { formatDateTime, formatRelative, plural } from '../format.ts';
import { weakPasswordError } from '../passwordStrength.ts';
import {
  K,
  markStale,
  type ResourceState,
  SECURITY_EVENTS_PAGE_SIZE,
  STALE,
  updateData,
  useAction,
  useResource,
} from '../queries.ts';
import { createPasskey } from '../webauthn.ts';
import { NEW_PASSWORD_HINT, passwordError } from './authForm.ts';
import { EmailNotificationsCard } from './EmailNotificationsCard.tsx';
import {
  describeSecurityEvent,
  describeUserAgent,
  groupSecret,
  recoveryCodesFileName,
  recoveryCodesText,
  stepUpRefusal,
} from './security.ts';

const PASSKEY_LABEL_MAX = 100;

/**
 * `enrolmentOnly`: the organization requires a second factor this member lacks, and the server answers nothing
 * else until one is added — only the two-step section is shown.
 */
export function SecurityView({ enrolmentOnly = false }: { enrolmentOnly?: boolean }) {
  const { client } = useApp();
  const mfa = useResource<MfaStatus>(K.mfa, () => client.custody.mfaStatus(), STALE.security);
  return (
    <>
      <PageHeading title="Security">Security</PageHeading>
      <p className="lead">
        Guard the account that holds the money: a second factor for logging in and for sensitive actions,
        where you are logged in, your password, and what changed recently.
      </p>
      <section className="card" aria-labelledby="two-step-title">
        <h2 id="two-step-title">Two-step verification</h2>
        <FactorSummary mfa={mfa} />
        <TotpCard mfa={mfa} />
        <PasskeysCard enrolmentOnly={enrolmentOnly} />
      </section>
      {!enrolmentOnly && (
        <>
          <SessionsCard />
          <PasswordCard />
          <EmailNotificationsCard />
          <EventsCard />
        </>
      )}
    </>
  );
}

function FactorSummary({ mfa }: { mfa: ResourceState<MfaStatus> }) {
  const data = mfa.data;
  if (data === undefined) {
    return mfa.error !== undefined ? <LoadError error={mfa.error} onRetry={mfa.reload} /> : <Loading />;
  }
  const on = data.totp || data.passkeys > 0;
  return (
    <p data-testid="mfa-summary">
      {on ? (
        <>
          <strong>On.</strong> Logging in asks for your password and then{' '}
          {data.totp && data.passkeys > 0
            ? 'a code from your authenticator app or a passkey'
            : data.totp
              ? 'a code from your authenticator app'
              : 'a passkey'}
          .{recoveryWords(data)}
        </>
      ) : (
        <>
          <strong>Off.</strong> Only your password protects this account. Add an authenticator app or a
          passkey: then a stolen password is not enough to log in or to move money.
        </>
      )}
    </p>
  );
}

/** How many recovery codes are left (they come with the authenticator app); nothing when there are none. */
function recoveryWords(data: MfaStatus): string {
  if (data.recoveryCodesLeft > 0) return ` ${plural(data.recoveryCodesLeft, 'recovery code')} left.`;
  return data.totp ? ' No recovery codes left.' : '';
}

/** Invalidates what a factor change moves: the summary, and the events list. */
function useFactorChanged() {
  const qc = useQueryClient();
  return () => {
    void qc.invalidateQueries({ queryKey: K.mfa });
    void qc.invalidateQueries({ queryKey: K.securityEventsAll });
  };
}

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

function TotpCard({ mfa }: { mfa: ResourceState<MfaStatus> }) {
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

/** The recovery codes, once: copy or download them now. Closing the dialog forgets them. */
function RecoveryCodesDialog({ codes, onClose }: { codes: string[]; onClose: () => void }) {
  const { session } = useApp();
  const warningId = useId();
  const [createdAt] = useState(() => new Date());
  const text = recoveryCodesText(codes, session.user.email, createdAt);
  const [downloaded, setDownloaded] = useState(false);

  function download() {
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = recoveryCodesFileName(createdAt);
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    setDownloaded(true);
  }

  return (
    <Dialog title="Save your recovery codes" onClose={onClose} describedBy={warningId} className="key-dialog">
      <p className="warning" id={warningId} data-testid="recovery-warning">
        <strong>These codes are shown only once: you will not see them again.</strong> Each one works once,
        instead of a code from your authenticator app, if you lose it. Keep them somewhere safe, away from
        this device.
      </p>
      <ol className="recovery-codes" data-testid="recovery-codes" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <div className="actions">
        <CopyButton text={codes.join('\n')} label="Copy recovery codes" autoFocus />
        <button type="button" className="button secondary small" onClick={download}>
          Download (.txt)
        </button>
        <span className="copy-status" role="status">
          {downloaded ? 'Downloaded.' : ''}
        </span>
      </div>
      <div className="dialog-actions">
        <button type="button" className="button primary" onClick={onClose}>
          I have saved my recovery codes
        </button>
      </div>
    </Dialog>
  );
}

function PasskeysCard({ enrolmentOnly }: { enrolmentOnly: boolean }) {
  const { client } = useApp();
  const qc = useQueryClient();
  const factorChanged = useFactorChanged();
  // While a required factor is missing the list is refused too (and there is nothing on it): not asked.
  const passkeys = useResource(
    enrolmentOnly ? null : K.passkeys,
    () => client.custody.passkeys(),
    STALE.security,
  );
  const [removing, setRemoving] = useState<Passkey | null>(null);
  const [note, setNote] = useState<string | null>(null);

  function put(change: (items: Passkey[]) => Passkey[]) {
    updateData<{ items: Passkey[] }>(qc, K.passkeys, (data) => ({ items: change(data.items) }));
  }

  const data = passkeys.data;
  return (
    <div className="subsection" data-testid="passkeys">
      <h3>Passkeys</h3>
      <p className="hint">
        A passkey lives on this device or your security key and is unlocked with your fingerprint, face or
        PIN. Nothing to type, and it cannot be phished.
      </p>
      {enrolmentOnly ? null : data === undefined ? (
        passkeys.error !== undefined ? (
          <LoadError error={passkeys.error} onRetry={passkeys.reload} />
        ) : (
          <Loading />
        )
      ) : data.items.length === 0 ? (
        <p className="empty">No passkeys yet.</p>
      ) : (
        <ul className="rows" aria-label="Your passkeys" data-testid="passkey-list">
          {data.items.map((passkey) => (
            <li key={passkey.id} className="row passkey">
              <span className="wallet-name user-text">{passkey.label}</span>
              <span className="row-meta">
                Added {formatDateTime(passkey.createdAt)} · last used{' '}
                {passkey.lastUsedAt === null ? 'never' : formatDateTime(passkey.lastUsedAt)}
              </span>
              <button type="button" className="button secondary small" onClick={() => setRemoving(passkey)}>
                Remove<span className="visually-hidden"> passkey {passkey.label}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <StatusNote text={note} />
      <AddPasskeyForm
        onAdded={(passkey) => {
          put((items) => [...items.filter((item) => item.id !== passkey.id), passkey]);
          markStale(qc, K.passkeys);
          setNote(`The passkey “${passkey.label}” is added.`);
          factorChanged();
        }}
      />
      {removing !== null && (
        <ConfirmDialog
          title="Remove this passkey?"
          confirmLabel="Remove passkey"
          danger
          onConfirm={async () => {
            await client.custody.removePasskey(removing.id);
            put((items) => items.filter((item) => item.id !== removing.id));
            setNote(`The passkey “${removing.label}” is removed.`);
            factorChanged();
          }}
          onClose={() => setRemoving(null)}
        >
          <p>
            “<span className="user-text">{removing.label}</span>” can no longer be used to log in or to
            confirm actions. The passkey itself stays on its device until you delete it there.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}

function AddPasskeyForm({ onAdded }: { onAdded: (passkey: Passkey) => void }) {
  const { client } = useApp();
  const [label, setLabel] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const action = useAction();
  const inputRef = useRef<HTMLInputElement>(null);
  const trimmed = label.trim();
  const problem =
    trimmed === ''
      ? 'Name the passkey, e.g. “Work laptop”.'
      : trimmed.length > PASSKEY_LABEL_MAX
        ? `Use at most ${PASSKEY_LABEL_MAX} characters.`
        : null;

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (problem !== null) return inputRef.current?.focus();
    const result: { added?: Passkey } = {};
    const error = await action.run(async () => {
      const options = await client.custody.passkeyRegistrationOptions();
      result.added = await client.custody.registerPasskey(trimmed, await createPasskey(options));
    });
    if (error === null && result.added !== undefined) {
      setLabel('');
      setSubmitted(false);
      onAdded(result.added);
    }
  }

  return (
    <form className="inline-form" onSubmit={onSubmit} noValidate aria-label="Add a passkey">
      <TextField
        label="Passkey name"
        value={label}
        onChange={setLabel}
        inputRef={inputRef}
        maxLength={PASSKEY_LABEL_MAX * 2}
        hint="To tell your passkeys apart, e.g. “Work laptop”."
        error={submitted ? problem : null}
      />
      <button type="submit" className="button primary" disabled={action.busy}>
        {action.busy ? 'Waiting for the passkey…' : 'Add a passkey'}
      </button>
      <ErrorMessage error={action.error} />
    </form>
  );
}

function SessionsCard() {
  const { client } = useApp();
  const qc = useQueryClient();
  const sessions = useResource(K.sessions, () => client.custody.sessions(), STALE.security);
  const [endingOthers, setEndingOthers] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const end = useAction();
  const [ending, setEnding] = useState<string | null>(null);

  function remove(ids: (item: SessionInfo) => boolean) {
    updateData<{ items: SessionInfo[] }>(qc, K.sessions, (data) => ({
      items: data.items.filter((item) => !ids(item)),
    }));
  }

  async function onEnd(session: SessionInfo) {
    setNote(null);
    setEnding(session.id);
    const error = await end.run(async () => {
      await client.custody.endSession(session.id);
      remove((item) => item.id === session.id);
    });
    setEnding(null);
    if (error === null) setNote(`The session on ${describeUserAgent(session.userAgent)} is logged out.`);
  }

  const data = sessions.data;
  const others = data?.items.filter((item) => !item.current).length ?? 0;
  return (
    <section className="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Where you are logged in</h2>
      {data === undefined ? (
        sessions.error !== undefined ? (
          <LoadError error={sessions.error} onRetry={sessions.reload} />
        ) : (
          <Loading />
        )
      ) : (
        <ul className="rows" aria-label="Sessions" data-testid="sessions">
          {data.items.map((session) => {
            const device = describeUserAgent(session.userAgent);
            return (
              <li key={session.id} className="row session" data-testid="session">
                <span className="wallet-name" title={session.userAgent ?? undefined}>
                  {device}
                </span>
                {session.current && <StatusTag status="active" label="this session" />}
                <span className="row-meta">
                  IP {session.ip ?? 'unknown'} · logged in {formatDateTime(session.createdAt)} · last used{' '}
                  {session.lastUsedAt === null ? 'not yet' : formatRelative(session.lastUsedAt)}
                </span>
                {!session.current && (
                  <button
                    type="button"
                    className="button secondary small"
                    onClick={() => void onEnd(session)}
                    disabled={ending === session.id}
                  >
                    {ending === session.id ? 'Ending…' : 'End'}
                    <span className="visually-hidden">
                      {' '}
                      the session on {device} from {session.ip ?? 'an unknown address'}
                    </span>
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <ErrorMessage error={end.error} />
      {others > 0 && (
        <div className="actions">
          <button type="button" className="button secondary" onClick={() => setEndingOthers(true)}>
            Log out everywhere else
          </button>
        </div>
      )}
      <StatusNote text={note} />
      {endingOthers && (
        <ConfirmDialog
          title="Log out everywhere else?"
          confirmLabel="Log out other sessions"
          onConfirm={async () => {
            const { ended } = await client.custody.endOtherSessions();
            remove((item) => !item.current);
            setNote(`${plural(ended, 'other session')} logged out. This one stays.`);
          }}
          onClose={() => setEndingOthers(false)}
        >
          <p>
            Every other browser and device logged in to this account is logged out at once (
            {plural(others, 'session')}
            ). This one stays.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function PasswordCard() {
  const { client } = useApp();
  const qc = useQueryClient();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const action = useAction();
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
    let ended = 0;
    const error = await action.run(async () => {
      try {
        ended = (await client.custody.changePassword(current, next)).endedSessions;
      } catch (caught) {
        throw stepUpRefusal(toApiError(caught), 'password');
      }
    });
    if (error !== null) return;
    setCurrent('');
    setNext('');
    setRepeat('');
    setSubmitted(false);
    void qc.invalidateQueries({ queryKey: K.sessions });
    void qc.invalidateQueries({ queryKey: K.securityEventsAll });
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

function EventsCard() {
  const { client } = useApp();
  const [page, setPage] = useState(1);
  const events = useResource<SecurityEventPage>(
    K.securityEvents(page),
    () => client.custody.securityEvents(page, SECURITY_EVENTS_PAGE_SIZE),
    STALE.security,
  );
  const data = events.data;
  return (
    <section className="card" aria-labelledby="events-title">
      <h2 id="events-title">Recent security events</h2>
      {data === undefined ? (
        events.error !== undefined ? (
          <LoadError error={events.error} onRetry={events.reload} />
        ) : (
          <Loading />
        )
      ) : data.items.length === 0 ? (
        <p className="empty">Nothing yet: a new factor, a removed one or a password change shows here.</p>
      ) : (
        <ul className="rows" aria-label="Security events" data-testid="security-events">
          {data.items.map((event) => (
            <li key={event.id} className="row">
              <span className="user-text">{describeSecurityEvent(event)}</span>
              <span className="row-meta">
                {formatDateTime(event.createdAt)} · {describeUserAgent(event.userAgent)}
                {event.ip !== null ? ` · IP ${event.ip}` : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
      {data !== undefined && (
        <Pagination
          page={page}
          limit={SECURITY_EVENTS_PAGE_SIZE}
          total={data.total}
          onPage={setPage}
          label="Security event pages"
        />
      )}
    </section>
  );
}

// The Security page (contract section 8): the second factor (an authenticator app with its QR code drawn here,
// recovery codes shown once; passkeys), where the account is logged in (end one session, or every other), the
// password, and recent security events. Adding or removing a factor and changing the password need a recent
// step-up: the step-up dialog (../StepUp.tsx) appears by itself when the server asks for one. One card a file,
// in this folder; this file assembles them.
import type { MfaStatus } from '../../api/custody.ts';
import { useApp } from '../../app-context.ts';
import { LoadError, Loading } from '../../components/Common.tsx';
import { PageHeading } from '../../components/PageHeading.tsx';
import { plural } from '../../format.ts';
import { K, type ResourceState, STALE, useResource } from '../../queries.ts';
import { EmailNotificationsCard } from '../EmailNotificationsCard.tsx';
import { EventsCard } from './EventsCard.tsx';
import { PasskeysCard } from './PasskeysCard.tsx';
import { PasswordCard } from './PasswordCard.tsx';
import { SessionsCard } from './SessionsCard.tsx';
import { TotpCard } from './TotpCard.tsx';

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

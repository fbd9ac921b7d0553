// Registering passkeys (WebAuthn, with @simplewebauthn/server) as a second factor: the options (a challenge of
// their own, one registration at a time), the registration (at most PASSKEYS_PER_USER_MAX), the list and removal.
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Kysely } from 'kysely';
import { newId } from '../../domain/ids.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Database, PasskeysTable } from '../../store/schema.ts';
import type { EventOutbox, ServiceContext } from '../context.ts';
import { type RequestMeta, recordSecurityEvent } from '../organizations/security-events.ts';
import { dropRecoveryCodesWithoutFactor } from './codes.ts';
import {
  challengeRow,
  PASSKEYS_PER_USER_MAX,
  passkeyView,
  type RelyingParty,
  RP_NAME,
  takeChallenge,
  userPasskeys,
} from './passkey-rows.ts';
import { webAuthn } from './webauthn.ts';

export function createPasskeyRegistration(ctx: ServiceContext, rp: RelyingParty) {
  const { store, writer, clock } = ctx;

  async function registrationOptions(userId: string) {
    const user = await store.db
      .selectFrom('users')
      .select('email')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const existing = await userPasskeys(store.db, userId);
    const options = await (await webAuthn()).generateRegistrationOptions({
      rpName: RP_NAME,
      rpID: rp.id,
      userName: user.email,
      userID: new TextEncoder().encode(userId),
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({
        id: p.credential_id,
        transports: JSON.parse(p.transports_json),
      })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    });
    await writer.run((trx) => storeRegistrationChallenge(trx, userId, options.challenge, clock.nowMs()));
    return options;
  }

  async function register(
    userId: string,
    input: { label: string; response: RegistrationResponseJSON },
    meta: RequestMeta,
  ) {
    const nowMs = clock.nowMs();
    const challenge = await takeChallenge(writer, userId, 'passkey_registration', null, clock.nowMs());
    const verification = await (await webAuthn())
      .verifyRegistrationResponse({
        response: input.response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: false,
      })
      .catch(() => ({ verified: false as const }));
    if (!verification.verified)
      throw new AppError('VALIDATION_ERROR', 'response is not a valid registration for this challenge');
    const row = passkeyRow(userId, input.label, verification.registrationInfo.credential, nowMs);
    const added = await writer.run((trx) => addPasskey(trx, row, { meta, nowMs }, ctx.events));
    if (added === 'full') throw new AppError('VALIDATION_ERROR', `at most ${PASSKEYS_PER_USER_MAX} passkeys`);
    if (added === 'duplicate') throw new AppError('INVALID_STATE', 'this passkey is already registered');
    return passkeyView(row);
  }

  async function list(userId: string) {
    return { items: (await userPasskeys(store.db, userId)).map(passkeyView) };
  }

  async function remove(userId: string, id: string, meta: RequestMeta) {
    const nowMs = clock.nowMs();
    const removed = await writer.run((trx) => removePasskey(trx, userId, id, { meta, nowMs }, ctx.events));
    if (!removed) throw notFound('passkey');
    return { id, deleted: true as const };
  }

  return { registrationOptions, register, list, remove };
}

/** One registration at a time: a new one replaces a challenge left unanswered. */
async function storeRegistrationChallenge(
  trx: Kysely<Database>,
  userId: string,
  challenge: string,
  nowMs: number,
): Promise<void> {
  await trx
    .deleteFrom('auth_challenges')
    .where('user_id', '=', userId)
    .where('kind', '=', 'passkey_registration')
    .execute();
  await trx
    .insertInto('auth_challenges')
    .values(challengeRow(userId, 'passkey_registration', challenge, null, nowMs))
    .execute();
}

/** The row of a verified registration: the credential's id, public key, counter and transports. */
function passkeyRow(
  userId: string,
  label: string,
  credential: { id: string; publicKey: Uint8Array; counter: number; transports?: string[] | undefined },
  nowMs: number,
): PasskeysTable {
  return {
    id: newId('pky'),
    user_id: userId,
    credential_id: credential.id,
    public_key: Buffer.from(credential.publicKey).toString('base64url'),
    sign_count: BigInt(credential.counter),
    transports_json: JSON.stringify(credential.transports ?? []),
    label,
    created_at_ms: BigInt(nowMs),
    last_used_at_ms: null,
  };
}

/** Adds the passkey unless the user has PASSKEYS_PER_USER_MAX or this one already. */
async function addPasskey(
  trx: Kysely<Database>,
  row: PasskeysTable,
  event: { meta: RequestMeta; nowMs: number },
  outbox: EventOutbox,
) {
  const userId = row.user_id;
  const { meta, nowMs } = event;
  const count = await userPasskeys(trx, userId);
  if (count.length >= PASSKEYS_PER_USER_MAX) return 'full' as const;
  if (count.some((p) => p.credential_id === row.credential_id)) return 'duplicate' as const;
  await trx.insertInto('passkeys').values(row).execute();
  await recordSecurityEvent(
    trx,
    {
      userId,
      type: 'security.factor_added',
      detail: { factor: 'passkey', label: row.label },
      meta,
      nowMs,
    },
    outbox,
  );
  return 'added' as const;
}

/** Removes the user's passkey `id` (false: no such passkey), and the recovery codes once no factor is left. */
async function removePasskey(
  trx: Kysely<Database>,
  userId: string,
  id: string,
  event: { meta: RequestMeta; nowMs: number },
  outbox: EventOutbox,
): Promise<boolean> {
  const { meta, nowMs } = event;
  const row = await trx
    .selectFrom('passkeys')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (row === undefined) return false;
  await trx.deleteFrom('passkeys').where('id', '=', id).execute();
  await dropRecoveryCodesWithoutFactor(trx, userId);
  await recordSecurityEvent(
    trx,
    {
      userId,
      type: 'security.factor_removed',
      detail: { factor: 'passkey', label: row.label },
      meta,
      nowMs,
    },
    outbox,
  );
  return true;
}

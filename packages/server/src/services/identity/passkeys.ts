// Passkeys (WebAuthn) as a second factor, with @simplewebauthn/server: registration (step-up), removal, and
// authentication for the second step of a login (the challenge rides on the login's mfaToken row) or for a
// step-up (a challenge row of its own, bound to the session). Every challenge is single use and lives 5 minutes;
// the relying party is the host of PUBLIC_URL, or `localhost` with origin `http://localhost:<PORT>`.
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { Kysely } from 'kysely';
import { isoFromMs } from '../../clock.ts';
import { newId } from '../../domain/ids.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Database, PasskeysTable } from '../../store/schema.ts';
import type { ServiceContext } from '../context.ts';
import { type RequestMeta, recordSecurityEvent } from '../organizations/security-events.ts';
import { dropRecoveryCodesWithoutFactor } from './factors.ts';

export const PASSKEY_CHALLENGE_TTL_MS = 5 * 60_000;
export const PASSKEYS_PER_USER_MAX = 20;
const RP_NAME = 'Agent Wallet';

export interface RelyingParty {
  id: string;
  origin: string;
}

/** Pure: the relying party from PUBLIC_URL, else loopback's (browsers refuse WebAuthn on an IP address). */
export function relyingParty(publicUrl: string | undefined, port: number): RelyingParty {
  if (publicUrl === undefined) return { id: 'localhost', origin: `http://localhost:${port}` };
  const url = new URL(publicUrl);
  return { id: url.hostname, origin: url.origin };
}

export interface PasskeyView {
  id: string;
  label: string;
  createdAt: string;
  lastUsedAt: string | null;
}

function passkeyView(row: PasskeysTable): PasskeyView {
  return {
    id: row.id,
    label: row.label,
    createdAt: isoFromMs(row.created_at_ms),
    lastUsedAt: row.last_used_at_ms === null ? null : isoFromMs(row.last_used_at_ms),
  };
}

export function createPasskeyService(ctx: ServiceContext, rp: RelyingParty) {
  const { store, writer, clock } = ctx;

  async function registrationOptions(userId: string) {
    const user = await store.db
      .selectFrom('users')
      .select('email')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const existing = await userPasskeys(store.db, userId);
    const options = await generateRegistrationOptions({
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
    await writer.run(async (trx) => {
      // One registration at a time: a new one replaces a challenge left unanswered.
      await trx
        .deleteFrom('auth_challenges')
        .where('user_id', '=', userId)
        .where('kind', '=', 'passkey_registration')
        .execute();
      await trx
        .insertInto('auth_challenges')
        .values(challengeRow(userId, 'passkey_registration', options.challenge, null))
        .execute();
    });
    return options;
  }

  async function register(
    userId: string,
    input: { label: string; response: RegistrationResponseJSON },
    meta: RequestMeta,
  ) {
    const nowMs = clock.nowMs();
    const challenge = await takeChallenge(userId, 'passkey_registration', null);
    const verification = await verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
    }).catch(() => ({ verified: false as const }));
    if (!verification.verified)
      throw new AppError('VALIDATION_ERROR', 'response is not a valid registration for this challenge');
    const { credential } = verification.registrationInfo;
    const row: PasskeysTable = {
      id: newId('pky'),
      user_id: userId,
      credential_id: credential.id,
      public_key: Buffer.from(credential.publicKey).toString('base64url'),
      sign_count: BigInt(credential.counter),
      transports_json: JSON.stringify(credential.transports ?? []),
      label: input.label,
      created_at_ms: BigInt(nowMs),
      last_used_at_ms: null,
    };
    const added = await writer.run(async (trx) => {
      const count = await userPasskeys(trx, userId);
      if (count.length >= PASSKEYS_PER_USER_MAX) return 'full' as const;
      if (count.some((p) => p.credential_id === credential.id)) return 'duplicate' as const;
      await trx.insertInto('passkeys').values(row).execute();
      await recordSecurityEvent(
        trx,
        {
          userId,
          type: 'security.factor_added',
          detail: { factor: 'passkey', label: input.label },
          meta,
          nowMs,
        },
        ctx.events,
      );
      return 'added' as const;
    });
    if (added === 'full') throw new AppError('VALIDATION_ERROR', `at most ${PASSKEYS_PER_USER_MAX} passkeys`);
    if (added === 'duplicate') throw new AppError('INVALID_STATE', 'this passkey is already registered');
    return passkeyView(row);
  }

  async function list(userId: string) {
    return { items: (await userPasskeys(store.db, userId)).map(passkeyView) };
  }

  async function remove(userId: string, id: string, meta: RequestMeta) {
    const nowMs = clock.nowMs();
    const removed = await writer.run(async (trx) => {
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
        ctx.events,
      );
      return true;
    });
    if (!removed) throw notFound('passkey');
    return { id, deleted: true as const };
  }

  /** Options for proving presence with a passkey: for a login's second step (mfaTokenId) or a session's step-up. */
  async function authenticationOptions(
    userId: string,
    binding: { mfaTokenId: string } | { sessionId: string },
  ) {
    const passkeys = await userPasskeys(store.db, userId);
    if (passkeys.length === 0) throw new AppError('INVALID_STATE', 'no passkey is registered');
    const options = await generateAuthenticationOptions({
      rpID: rp.id,
      allowCredentials: passkeys.map((p) => ({
        id: p.credential_id,
        transports: JSON.parse(p.transports_json),
      })),
      userVerification: 'preferred',
    });
    await writer.run(async (trx) => {
      if ('mfaTokenId' in binding) {
        await trx
          .updateTable('auth_challenges')
          .set({ challenge: options.challenge })
          .where('id', '=', binding.mfaTokenId)
          .execute();
        return;
      }
      await trx
        .deleteFrom('auth_challenges')
        .where('session_id', '=', binding.sessionId)
        .where('kind', '=', 'passkey_authentication')
        .execute();
      await trx
        .insertInto('auth_challenges')
        .values(challengeRow(userId, 'passkey_authentication', options.challenge, binding.sessionId))
        .execute();
    });
    return options;
  }

  /** True when `response` answers `challenge` with one of the user's passkeys; its counter moves forward. */
  async function verify(
    userId: string,
    challenge: string,
    response: AuthenticationResponseJSON,
  ): Promise<boolean> {
    const row = await store.db
      .selectFrom('passkeys')
      .selectAll()
      .where('user_id', '=', userId)
      .where('credential_id', '=', String(response.id))
      .executeTakeFirst();
    if (row === undefined) return false;
    const verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: row.credential_id,
        publicKey: new Uint8Array(Buffer.from(row.public_key, 'base64url')),
        counter: Number(row.sign_count),
        transports: JSON.parse(row.transports_json),
      },
      requireUserVerification: false,
    }).catch(() => ({ verified: false as const }));
    if (!verification.verified) return false;
    const newCounter = BigInt(verification.authenticationInfo.newCounter);
    await writer.run((trx) =>
      trx
        .updateTable('passkeys')
        .set({ sign_count: newCounter, last_used_at_ms: BigInt(clock.nowMs()) })
        .where('id', '=', row.id)
        .execute(),
    );
    return true;
  }

  /** A step-up's challenge for this session, taken (single use). */
  async function verifyStepUp(userId: string, sessionId: string, response: AuthenticationResponseJSON) {
    const challenge = await takeChallenge(userId, 'passkey_authentication', sessionId);
    return verify(userId, challenge, response);
  }

  /** Reads and deletes the live challenge of this kind (and session): a challenge is answered once. */
  async function takeChallenge(
    userId: string,
    kind: 'passkey_registration' | 'passkey_authentication',
    sessionId: string | null,
  ) {
    const nowMs = clock.nowMs();
    const row = await writer.run(async (trx) => {
      let query = trx
        .selectFrom('auth_challenges')
        .select(['id', 'challenge', 'expires_at_ms'])
        .where('user_id', '=', userId)
        .where('kind', '=', kind);
      if (sessionId !== null) query = query.where('session_id', '=', sessionId);
      const found = await query.executeTakeFirst();
      if (found !== undefined) await trx.deleteFrom('auth_challenges').where('id', '=', found.id).execute();
      return found;
    });
    if (row === undefined || row.challenge === null || row.expires_at_ms <= BigInt(nowMs)) {
      throw new AppError('INVALID_STATE', 'no live challenge: ask for options again');
    }
    return row.challenge;
  }

  function challengeRow(
    userId: string,
    kind: 'passkey_registration' | 'passkey_authentication',
    challenge: string,
    sessionId: string | null,
  ) {
    const nowMs = clock.nowMs();
    return {
      id: newId('pky'),
      user_id: userId,
      kind,
      challenge,
      session_id: sessionId,
      failures: 0n,
      expires_at_ms: BigInt(nowMs + PASSKEY_CHALLENGE_TTL_MS),
      used_at_ms: null,
      created_at_ms: BigInt(nowMs),
    };
  }

  return { registrationOptions, register, list, remove, authenticationOptions, verify, verifyStepUp };
}

export type PasskeyService = ReturnType<typeof createPasskeyService>;

function userPasskeys(db: Kysely<Database>, userId: string) {
  return db
    .selectFrom('passkeys')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at_ms', 'desc')
    .orderBy('id', 'desc')
    .limit(PASSKEYS_PER_USER_MAX)
    .execute();
}

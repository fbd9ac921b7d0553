// Proving presence with a passkey (WebAuthn, with @simplewebauthn/server): options for the second step of a
// login (the challenge rides on the login's mfaToken row) or for a step-up (a challenge row of its own, bound to
// the session), and the verification of the answer (its counter moves forward).
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { Kysely } from 'kysely';
import { AppError } from '../../errors.ts';
import type { Database } from '../../store/schema.ts';
import type { ServiceContext } from '../context.ts';
import { challengeRow, type RelyingParty, takeChallenge, userPasskeys } from './passkey-rows.ts';
import { webAuthn } from './webauthn.ts';

export function createPasskeyAuthentication(ctx: ServiceContext, rp: RelyingParty) {
  const { store, writer, clock } = ctx;

  /** Options for proving presence with a passkey: for a login's second step (mfaTokenId) or a session's step-up. */
  async function authenticationOptions(
    userId: string,
    binding: { mfaTokenId: string } | { sessionId: string },
  ) {
    const passkeys = await userPasskeys(store.db, userId);
    if (passkeys.length === 0) throw new AppError('INVALID_STATE', 'no passkey is registered');
    const options = await (await webAuthn()).generateAuthenticationOptions({
      rpID: rp.id,
      allowCredentials: passkeys.map((p) => ({
        id: p.credential_id,
        transports: JSON.parse(p.transports_json),
      })),
      userVerification: 'preferred',
    });
    await writer.run((trx) => storeAuthenticationChallenge(trx, userId, binding, options, clock.nowMs()));
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
    const verification = await (await webAuthn())
      .verifyAuthenticationResponse({
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
      })
      .catch(() => ({ verified: false as const }));
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
    const challenge = await takeChallenge(writer, userId, 'passkey_authentication', sessionId, clock.nowMs());
    return verify(userId, challenge, response);
  }

  return { authenticationOptions, verify, verifyStepUp };
}

/** A login's challenge rides on its mfaToken row; a step-up's is a row of its own, bound to the session. */
async function storeAuthenticationChallenge(
  trx: Kysely<Database>,
  userId: string,
  binding: { mfaTokenId: string } | { sessionId: string },
  options: { challenge: string },
  nowMs: number,
): Promise<void> {
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
    .values(challengeRow(userId, 'passkey_authentication', options.challenge, binding.sessionId, nowMs))
    .execute();
}

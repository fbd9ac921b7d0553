// An owner's passkey signs for a hybrid treasury account (contract section 14): the WebAuthn request options whose
// challenge is the request's hash (what the account validates, in base64url), and the assertion handed in —
// verified here against the credential the caller enrolled (its counter moves forward, as at a login), then, in
// chain/bounded/owners-requests.ts, checked against the account's own keys on chain, encoded as the
// HybridDeleGator's P-256 verifier expects and submitted.
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { OwnersDeps } from '../../chain/bounded/owners-requests.ts';
import { AppError } from '../../errors.ts';
import type { ServiceContext } from '../context.ts';
import { createPasskeyAuthentication } from '../identity/passkey-authentication.ts';
import { type RelyingParty, userPasskeys } from '../identity/passkey-rows.ts';
import { webAuthn } from '../identity/webauthn.ts';

type TreasuryRow = NonNullable<
  Awaited<ReturnType<typeof import('../../chain/bounded/owners-requests.ts')['findOwnersRequest']>>
>;

const ownersCode = () => import('../../chain/bounded/owners-requests.ts');
const passkeyCode = () => import('../../chain/bounded/passkey-signature.ts');

function refuse(message: string): AppError {
  return new AppError('VALIDATION_ERROR', `passkey: ${message}`);
}

function hybridOnly(deps: OwnersDeps): void {
  if (deps.config.bounded?.accountKind !== 'hybrid')
    throw refuse(
      "the treasury account's owners sign with their keys (a passkey signs for TREASURY_ACCOUNT_KIND=hybrid only)",
    );
}

/** WebAuthn request options for this request: its hash as the challenge, the caller's passkeys the account holds. */
export async function passkeyRequestOptions(
  ctx: ServiceContext,
  deps: OwnersDeps,
  rp: RelyingParty,
  personId: string,
  row: TreasuryRow,
) {
  hybridOnly(deps);
  const { requestDigest } = await ownersCode();
  const { accountHoldsKey, p256KeyOf } = await passkeyCode();
  const held = [];
  for (const passkey of await userPasskeys(ctx.store.db, personId)) {
    let key: ReturnType<typeof p256KeyOf>;
    try {
      key = p256KeyOf(passkey.credential_id, passkey.public_key);
    } catch {
      continue;
    }
    if (await accountHoldsKey(deps.client, row.account as `0x${string}`, key)) held.push(passkey);
  }
  if (held.length === 0)
    throw new AppError('INVALID_STATE', "none of your passkeys is one of the treasury account's keys");
  const digest = requestDigest(row, deps.config);
  return (await webAuthn()).generateAuthenticationOptions({
    rpID: rp.id,
    challenge: new Uint8Array(Buffer.from(digest.slice(2), 'hex')),
    allowCredentials: held.map((p) => ({ id: p.credential_id, transports: JSON.parse(p.transports_json) })),
    userVerification: 'preferred',
  });
}

/** The caller's passkey assertion over this request: verified, then handed to the account's checks and stored. */
export async function signWithPasskey(
  ctx: ServiceContext,
  deps: OwnersDeps,
  rp: RelyingParty,
  personId: string,
  row: TreasuryRow,
  response: AuthenticationResponseJSON,
) {
  hybridOnly(deps);
  const { addPasskeySignature, requestDigest, requestView } = await ownersCode();
  if (row.status !== 'awaiting_signatures') return requestView(row, deps.config);
  const { challengeOf, p256KeyOf } = await passkeyCode();
  const challenge = challengeOf(requestDigest(row, deps.config));
  const verified = await createPasskeyAuthentication(ctx, rp).verify(personId, challenge, response);
  if (!verified) throw refuse('not an assertion of one of your passkeys over this request');
  const passkey = await ctx.store.db
    .selectFrom('passkeys')
    .select(['credential_id', 'public_key'])
    .where('user_id', '=', personId)
    .where('credential_id', '=', String(response.id))
    .executeTakeFirstOrThrow();
  const assertion = {
    keyId: passkey.credential_id,
    authenticatorData: new Uint8Array(Buffer.from(response.response.authenticatorData, 'base64url')),
    clientDataJSON: Buffer.from(response.response.clientDataJSON, 'base64url').toString('utf8'),
    signature: new Uint8Array(Buffer.from(response.response.signature, 'base64url')),
  };
  return addPasskeySignature(deps, row.id, assertion, p256KeyOf(passkey.credential_id, passkey.public_key));
}

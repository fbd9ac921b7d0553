// An owner's passkey signs for a hybrid treasury account (a bounded treasury, TREASURY_ACCOUNT_KIND=hybrid): the
// server's WebAuthn request options for a request waiting for the owners (its challenge is the request's hash),
// the browser's ceremony (webauthn.ts), and the answer handed in. The server verifies the assertion against the
// passkey the person enrolled and the account's keys on chain before it submits anything. The SDK has no methods
// for these routes yet, so they go through ApiClient.request (rate limits, 401, step-up); the answer's type is the
// SDK's wire type, generated from the server's OpenAPI document.
// The hand-in needs a recent proof of presence. Its answer cannot simply be sent again after a step-up: the server
// moves the passkey's counter forward with each answer it accepts, and a step-up answered with this same passkey
// outdates the one in hand. So a STEP_UP_REQUIRED refusal comes back here; once the person proved presence (the
// app's dialog), the browser is asked for a fresh answer and that one is handed in.
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import { answerWithPasskey } from '../webauthn.ts';
import type { Answer } from './custody.ts';
import { ApiError } from './errors.ts';
import type { Requester } from './request.ts';
import { STEP_UP_METHODS, type StepUpMethod } from './stepUp.ts';

/** A payment waiting for the owners: the withdrawal answered 202 `awaiting_signatures` (its id). */
export interface WaitingRequest {
  id: string;
}

/** POST /wallet/treasury/signatures's answer: `signedBy` holds owners' addresses, and passkeys as `passkey:<credential id>`. */
export type SignatureState = Answer<'treasurySignatures'>;

/** A requester that can also ask the person to prove presence (ApiClient: the app's step-up dialog). */
export interface StepUpRequester extends Requester {
  proveStepUp?(methods: StepUpMethod[]): Promise<boolean>;
}

/** The methods a STEP_UP_REQUIRED refusal offers, or null for any other failure. */
function stepUpAsked(error: unknown): StepUpMethod[] | null {
  if (!(error instanceof ApiError) || error.code !== 'STEP_UP_REQUIRED') return null;
  const offered = Array.isArray(error.details.methods) ? error.details.methods : [];
  const known = offered.filter((m): m is StepUpMethod => (STEP_UP_METHODS as readonly unknown[]).includes(m));
  return known.length > 0 ? known : ['password'];
}

export function treasuryPasskeyApi(
  client: StepUpRequester,
  answer: (
    options: PublicKeyCredentialRequestOptionsJSON,
  ) => Promise<AuthenticationResponseJSON> = answerWithPasskey,
) {
  /** The options, the browser's ceremony, the answer handed in (a step-up refusal thrown back, not held). */
  async function signOnce(request: WaitingRequest): Promise<SignatureState> {
    const options = await client.request<PublicKeyCredentialRequestOptionsJSON>(
      'POST',
      '/wallet/treasury/signatures/passkey-options',
      { body: { id: request.id } },
    );
    const passkey = await answer(options);
    return client.request<SignatureState>('POST', '/wallet/treasury/signatures', {
      body: { id: request.id, passkey },
      holdForStepUp: false,
    });
  }

  return {
    /** Asks the browser for one of the person's passkeys over this request and hands the answer in. */
    async signWithPasskey(request: WaitingRequest): Promise<SignatureState> {
      try {
        return await signOnce(request);
      } catch (error) {
        const methods = stepUpAsked(error);
        if (methods === null || client.proveStepUp === undefined) throw error;
        if (!(await client.proveStepUp(methods))) throw error;
        return signOnce(request);
      }
    },
  };
}

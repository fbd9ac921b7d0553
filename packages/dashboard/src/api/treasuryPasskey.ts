// An owner's passkey signs for a hybrid treasury account (a bounded treasury, TREASURY_ACCOUNT_KIND=hybrid): the
// server's WebAuthn request options for a request waiting for the owners (its challenge is the request's hash),
// the browser's ceremony (webauthn.ts), and the answer handed in. The server verifies the assertion against the
// passkey the person enrolled and the account's keys on chain before it submits anything. The SDK has no methods
// for these routes yet, so they go through ApiClient.request (rate limits, 401, step-up).
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import { answerWithPasskey } from '../webauthn.ts';
import type { Requester } from './request.ts';

/** A payment waiting for the owners: the withdrawal answered 202 `awaiting_signatures` (its id). */
export interface WaitingRequest {
  id: string;
}

/** POST /wallet/treasury/signatures's answer. */
export interface SignatureState {
  id: string;
  status: 'awaiting_signatures' | 'submitted' | 'completed' | 'failed';
  signaturesNeeded: number;
  /** Owners' addresses, and passkeys as `passkey:<credential id>`. */
  signedBy: string[];
}

export function treasuryPasskeyApi(
  client: Requester,
  answer: (
    options: PublicKeyCredentialRequestOptionsJSON,
  ) => Promise<AuthenticationResponseJSON> = answerWithPasskey,
) {
  return {
    /** Asks the browser for one of the person's passkeys over this request and hands the answer in. */
    async signWithPasskey(request: WaitingRequest): Promise<SignatureState> {
      const options = await client.request<PublicKeyCredentialRequestOptionsJSON>(
        'POST',
        '/wallet/treasury/signatures/passkey-options',
        { body: { id: request.id } },
      );
      const passkey = await answer(options);
      return client.request<SignatureState>('POST', '/wallet/treasury/signatures', {
        body: { id: request.id, passkey },
      });
    },
  };
}

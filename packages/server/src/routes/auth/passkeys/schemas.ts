// The browser's WebAuthn JSON (what @simplewebauthn/browser hands back), checked for shape here and for meaning by
// @simplewebauthn/server. Loose on purpose: browsers and authenticators add fields (extension results) that
// the verifier reads or ignores; the total body is still bounded by the 64 KiB limit.
import { z } from 'zod';

const base64url = z
  .string()
  .min(1)
  .max(4_096)
  .regex(/^[A-Za-z0-9_-]+$/, { message: 'must be base64url' });

const credentialJson = {
  id: base64url,
  rawId: base64url,
  type: z.literal('public-key'),
  clientExtensionResults: z.record(z.string(), z.unknown()),
  authenticatorAttachment: z.string().max(64).optional(),
};

export const registrationResponseSchema = z
  .object({
    ...credentialJson,
    response: z
      .object({ clientDataJSON: base64url, attestationObject: z.string().min(1).max(16_384) })
      .loose(),
  })
  .loose()
  .describe('the browser’s RegistrationResponseJSON (navigator.credentials.create)');

export const authenticationResponseSchema = z
  .object({
    ...credentialJson,
    response: z
      .object({ clientDataJSON: base64url, authenticatorData: base64url, signature: base64url })
      .loose(),
  })
  .loose()
  .describe('the browser’s AuthenticationResponseJSON (navigator.credentials.get)');

/** Options as @simplewebauthn/server makes them (documented, not validated: the server writes them). */
export const webauthnOptionsView = z
  .object({ challenge: z.string() })
  .loose()
  .describe('PublicKeyCredentialCreationOptionsJSON / PublicKeyCredentialRequestOptionsJSON for the browser');

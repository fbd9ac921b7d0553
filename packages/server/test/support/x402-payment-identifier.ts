// x402's payment-identifier extension on the seller's side, from @x402/extensions and the resource server's own
// hooks: every payment the seller verifies is logged with the id it carries (null when none), and where the route
// declares the extension required, a payment without a valid id is refused before verification (the resource
// server's abort: a 402 naming the reason), as the extension asks a seller that requires it to do.
import type { x402ResourceServer } from '@x402/core/server';
import type { PaymentPayload } from '@x402/core/types';
import {
  declarePaymentIdentifierExtension,
  extractPaymentIdentifier,
  isPaymentIdentifierRequired,
  PAYMENT_IDENTIFIER,
  validatePaymentIdentifierRequirement,
} from '@x402/extensions/payment-identifier';

export interface IdentifiedPayment {
  /** The resource URL the payload names. */
  url: string | null;
  /** The payment-identifier id the payload carries, or null. */
  id: string | null;
  /** The payload's own `extensions`, as sent. */
  extensions: Record<string, unknown> | undefined;
  /** The authorization's nonce (EIP-3009's `authorization.nonce` or Permit2's `permit2Authorization.nonce`). */
  nonce: string | null;
}

/** A route's `extensions` declaring payment-identifier, required or not. */
export const paymentIdentifierDeclared = (required: boolean) => ({
  [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(required),
});

/** Logs the id of every payment `server` verifies into `seen`; refuses one without it where it is required. */
export function enforcePaymentIdentifier(server: x402ResourceServer, seen: IdentifiedPayment[]): void {
  server.onBeforeVerify(async ({ paymentPayload, declaredExtensions }) => {
    const payload = paymentPayload as unknown as PaymentPayload;
    const inner = payload.payload as {
      authorization?: { nonce?: string };
      permit2Authorization?: { nonce?: string };
    };
    seen.push({
      url: payload.resource?.url ?? null,
      id: extractPaymentIdentifier(payload),
      extensions: payload.extensions as Record<string, unknown> | undefined,
      nonce: inner.authorization?.nonce ?? inner.permit2Authorization?.nonce ?? null,
    });
    const required = isPaymentIdentifierRequired(declaredExtensions[PAYMENT_IDENTIFIER]);
    const check = validatePaymentIdentifierRequirement(payload, required);
    if (!check.valid)
      return { abort: true, reason: 'payment_identifier_required', message: check.errors?.join('; ') };
  });
}

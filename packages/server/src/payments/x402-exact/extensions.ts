// x402 v2 extensions a seller declares in its PaymentRequired (`extensions`) and this service answers in the payment
// payload. Today one: `payment-identifier` (@x402/extensions), an idempotency key for the seller — where the
// seller declares it (required or not), the payload carries `extensions["payment-identifier"].info.id`; where it
// does not, nothing is added. The id is derived from the authorization's nonce, which is stored with the payment
// before it is signed: a retry, an idempotent replay and a resend after a crash all carry the same id, so the
// seller can tell them from a new purchase; a new payment has a new nonce, hence a new id.
import {
  appendPaymentIdentifierToExtensions,
  isPaymentIdentifierExtension,
  PAYMENT_IDENTIFIER,
} from '@x402/extensions/payment-identifier';
import type { PaymentRequiredInfo } from './protocol.ts';

/** A declaration is kept as the seller sent it up to this size; beyond it, without its schema. */
const DECLARATION_CHARS_MAX = 4_096;

/** What a payment stores of the seller's declared extensions (x402 v2): those this service answers, or null. */
export function declaredExtensionsJson(required: PaymentRequiredInfo): string | null {
  if (required.x402Version !== 2) return null;
  const extensions = required.extensions;
  if (extensions === null || typeof extensions !== 'object' || Array.isArray(extensions)) return null;
  const declared = (extensions as Record<string, unknown>)[PAYMENT_IDENTIFIER];
  if (!isPaymentIdentifierExtension(declared)) return null;
  const whole = JSON.stringify({ [PAYMENT_IDENTIFIER]: declared });
  if (whole.length <= DECLARATION_CHARS_MAX) return whole;
  return JSON.stringify({ [PAYMENT_IDENTIFIER]: { info: { required: declared.info.required } } });
}

/** The payment payload's `extensions` for a stored declaration and the authorization's nonce; undefined when none. */
export function answeredExtensions(
  extensionsJson: string | null,
  nonce: string,
): Record<string, unknown> | undefined {
  if (extensionsJson === null) return undefined;
  const extensions = JSON.parse(extensionsJson) as Record<string, unknown>;
  return appendPaymentIdentifierToExtensions(extensions, paymentIdOf(nonce));
}

/** `pay_` and the nonce's 64 hex digits: 68 characters of [A-Za-z0-9_], as the extension requires (16–128). */
export function paymentIdOf(nonce: string): string {
  return `pay_${nonce.replace(/^0x/, '').toLowerCase()}`;
}

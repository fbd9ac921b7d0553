// x402's `exact` scheme as a payment method: the seller's requirements read with the protocol's own client
// (@x402/core: the v2 PAYMENT-REQUIRED header, or a v1 body), an EIP-3009 authorization with a fresh random
// nonce, valid for the seller's timeout within the service's bounds, sent back as PAYMENT-SIGNATURE (v2) or
// X-PAYMENT (v1); the seller's PAYMENT-RESPONSE names the settlement.
import { randomBytes } from 'node:crypto';
import { x402Client, x402HTTPClient } from '@x402/core/client';
import type { Hex } from 'viem';
import { eip3009TypedData } from '../eip3009.ts';
import { METHOD_KINDS } from '../kinds.ts';
import {
  type Credential,
  type MethodId,
  type Offer,
  type OfferReading,
  type PaymentMethod,
  type SellerAnswer,
  type Settlement,
  txHashOf,
  validBeforeSeconds,
} from '../method.ts';
import { answeredExtensions, declaredExtensionsJson } from './extensions.ts';
import {
  type ChosenRequirement,
  encodePaymentHeader,
  type PaymentRequiredInfo,
  payableRequirements,
  paymentHeaderName,
  paymentPayloadOf,
} from './protocol.ts';

const protocol = new x402HTTPClient(new x402Client());

/** The requirements of a seller's 402 answer, or null when it carries none this client can read. */
export function paymentRequiredIn(answer: SellerAnswer): PaymentRequiredInfo | null {
  let body: unknown;
  try {
    body = answer.bodyText === null ? undefined : JSON.parse(answer.bodyText);
  } catch {
    body = undefined;
  }
  try {
    const required = protocol.getPaymentRequiredResponse(
      (name) => answer.header(name),
      body,
    ) as PaymentRequiredInfo;
    return Array.isArray(required.accepts) ? required : null;
  } catch {
    return null;
  }
}

/** An offer of a chosen requirement of a seller's answer, for the x402 method (scheme) that reads it. */
export function offerOf(
  chosen: ChosenRequirement,
  required: PaymentRequiredInfo,
  method: MethodId = 'x402-exact',
): Offer {
  const { resource } = required;
  const url = (resource as { url?: unknown } | undefined)?.url ?? chosen.requirement.resource;
  return {
    method,
    payTo: chosen.payTo,
    amountMicros: chosen.amountMicros,
    termsJson: JSON.stringify(chosen.requirement),
    resourceJson: resource === undefined || resource === null ? null : JSON.stringify(resource),
    extensionsJson: declaredExtensionsJson(required),
    version: chosen.version,
    resourceUrl: typeof url === 'string' ? url : null,
  };
}

export const x402Exact: PaymentMethod = {
  id: 'x402-exact',
  ...METHOD_KINDS['x402-exact'],
  credentialHeaders: ['payment-signature', 'x-payment'],
  answerHeaders: ['payment-required', 'payment-response', 'x-payment-response'],
  authorization: 'eip3009',
  metered: false,
  offersIn(answer, chain): OfferReading {
    const required = paymentRequiredIn(answer);
    if (required === null) return { payable: [], unpayable: [] };
    const { payable, unpayable } = payableRequirements(required, chain);
    return { payable: payable.map((chosen) => offerOf(chosen, required)), unpayable };
  },
  terms(offer, nowMs) {
    const requirement = JSON.parse(offer.termsJson) as { maxTimeoutSeconds?: unknown };
    const timeout = typeof requirement.maxTimeoutSeconds === 'number' ? requirement.maxTimeoutSeconds : 0;
    return {
      nonce: `0x${randomBytes(32).toString('hex')}` as Hex,
      validBeforeS: validBeforeSeconds(nowMs, timeout),
    };
  },
  typedData: (_offer, fields, token) => eip3009TypedData(fields, token),
  credential(offer, auth): Credential {
    const version = offer.version === 1 ? 1 : 2;
    const chosen = { version, requirement: JSON.parse(offer.termsJson) } as const;
    const resource = offer.resourceJson === null ? undefined : JSON.parse(offer.resourceJson);
    const payload = paymentPayloadOf(
      chosen,
      resource,
      auth,
      answeredExtensions(offer.extensionsJson, auth.nonce),
    );
    return { headerName: paymentHeaderName(version), header: encodePaymentHeader(payload), payload };
  },
  settlementIn(answer): Settlement {
    const receipt = answer.header('payment-response') ?? answer.header('x-payment-response') ?? null;
    try {
      const settled = protocol.getPaymentSettleResponse((name) => answer.header(name));
      return {
        txHash: settled.success === true ? txHashOf(settled.transaction) : null,
        receipt,
        settledMicros: null,
      };
    } catch {
      return { txHash: null, receipt, settledMicros: null };
    }
  },
};

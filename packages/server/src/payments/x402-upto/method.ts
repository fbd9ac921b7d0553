// x402's `upto` scheme (metered prices, x402 v2 as @x402/evm 2.27 defines it) as a payment method: the
// requirement's amount is a maximum, and the treasury signs a Permit2 `permitWitnessTransferFrom` for at most that
// amount, spendable only by x402's upto proxy, only to the seller's payTo, only when settled by the facilitator the
// seller names (extra.facilitatorAddress), until the deadline. The seller settles what was used — any amount up to
// the maximum, or nothing — and says so in its PAYMENT-RESPONSE; the chain shows what actually moved. The nonce
// is a random uint256 chosen at the decision and stored with the payment, so a retry or a resumed crash signs the
// very same permit (Permit2 spends a nonce once).

import { randomBytes } from 'node:crypto';
import { x402Client, x402HTTPClient } from '@x402/core/client';
import { getAddress, type Hex } from 'viem';
import { parseAddress } from '../../domain/address.ts';
import { PERMIT2_ADDRESS, UPTO_PROXY_ADDRESS } from '../../domain/permit2.ts';
import { METHOD_KINDS } from '../kinds.ts';
import {
  type Credential,
  type OfferReading,
  type PaymentMethod,
  type SellerAnswer,
  type Settlement,
  type StoredOffer,
  txHashOf,
  validBeforeSeconds,
} from '../method.ts';
import { answeredExtensions } from '../x402-exact/extensions.ts';
import { offerOf, paymentRequiredIn } from '../x402-exact/method.ts';
import {
  encodePaymentHeader,
  type PaymentRequiredInfo,
  payableRequirements,
} from '../x402-exact/protocol.ts';

/** @x402/evm's uptoPermit2WitnessTypes: what Permit2 and the proxy check the signature against. */
const uptoPermit2WitnessTypes = {
  PermitWitnessTransferFrom: [
    { name: 'permitted', type: 'TokenPermissions' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
    { name: 'witness', type: 'Witness' },
  ],
  TokenPermissions: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
  ],
  Witness: [
    { name: 'to', type: 'address' },
    { name: 'facilitator', type: 'address' },
    { name: 'validAfter', type: 'uint256' },
  ],
} as const;

const protocol = new x402HTTPClient(new x402Client());

interface UptoRequirement {
  asset: string;
  extra: { facilitatorAddress: string };
}

const storedRequirement = (offer: StoredOffer) => JSON.parse(offer.termsJson) as UptoRequirement;

/** A readable upto requirement also names the facilitator (the one party allowed to settle) and Permit2. */
function uptoReading(required: PaymentRequiredInfo, chain: Parameters<PaymentMethod['offersIn']>[1]) {
  if (required.x402Version !== 2) return { payable: [], unpayable: [] };
  const { payable, unpayable } = payableRequirements(required, chain, 'upto');
  const usable = payable.filter((chosen) => {
    const extra = (chosen.requirement.extra ?? {}) as Record<string, unknown>;
    const method = extra.assetTransferMethod;
    return parseAddress(extra.facilitatorAddress).ok && (method === undefined || method === 'permit2');
  });
  for (const chosen of payable)
    if (!usable.includes(chosen)) unpayable.push('x402 upto (no facilitatorAddress, or not through Permit2)');
  return { payable: usable, unpayable };
}

/** The permit as the proxy and @x402/evm's facilitator read it (`permit2Authorization`). */
function permit2Authorization(offer: StoredOffer, auth: Parameters<PaymentMethod['credential']>[1]) {
  const requirement = storedRequirement(offer);
  return {
    from: getAddress(auth.from),
    permitted: { token: getAddress(requirement.asset), amount: auth.value.toString() },
    spender: getAddress(UPTO_PROXY_ADDRESS),
    nonce: BigInt(auth.nonce).toString(),
    deadline: auth.validBefore.toString(),
    witness: {
      to: getAddress(auth.to),
      facilitator: getAddress(requirement.extra.facilitatorAddress),
      validAfter: auth.validAfter.toString(),
    },
  };
}

export const x402Upto: PaymentMethod = {
  id: 'x402-upto',
  ...METHOD_KINDS['x402-upto'],
  credentialHeaders: [],
  answerHeaders: [],
  authorization: 'permit2',
  metered: true,
  offersIn(answer: SellerAnswer, chain): OfferReading {
    const required = paymentRequiredIn(answer);
    if (required === null) return { payable: [], unpayable: [] };
    const { payable, unpayable } = uptoReading(required, chain);
    return { payable: payable.map((c) => offerOf(c, required, 'x402-upto')), unpayable };
  },
  terms(offer, nowMs) {
    const requirement = JSON.parse(offer.termsJson) as { maxTimeoutSeconds?: unknown };
    const timeout = typeof requirement.maxTimeoutSeconds === 'number' ? requirement.maxTimeoutSeconds : 0;
    return {
      nonce: `0x${randomBytes(32).toString('hex')}` as Hex,
      validBeforeS: validBeforeSeconds(nowMs, timeout),
    };
  },
  typedData(offer, fields, token) {
    const permit = permit2Authorization(offer, { ...fields, signature: '' });
    return {
      domain: { name: 'Permit2', chainId: token.chainId, verifyingContract: PERMIT2_ADDRESS },
      types: uptoPermit2WitnessTypes,
      primaryType: 'PermitWitnessTransferFrom',
      message: {
        permitted: { token: permit.permitted.token, amount: fields.value },
        spender: permit.spender,
        nonce: BigInt(fields.nonce),
        deadline: fields.validBefore,
        witness: {
          to: permit.witness.to,
          facilitator: permit.witness.facilitator,
          validAfter: fields.validAfter,
        },
      },
    };
  },
  credential(offer, auth): Credential {
    const resource = offer.resourceJson === null ? undefined : JSON.parse(offer.resourceJson);
    const extensions = answeredExtensions(offer.extensionsJson, auth.nonce);
    const payload = {
      x402Version: 2,
      ...(resource === undefined || resource === null ? {} : { resource }),
      accepted: JSON.parse(offer.termsJson),
      payload: { signature: auth.signature, permit2Authorization: permit2Authorization(offer, auth) },
      ...(extensions === undefined ? {} : { extensions }),
    };
    return { headerName: 'PAYMENT-SIGNATURE', header: encodePaymentHeader(payload), payload };
  },
  settlementIn(answer): Settlement {
    const receipt = answer.header('payment-response') ?? null;
    try {
      const settled = protocol.getPaymentSettleResponse((name) => answer.header(name)) as {
        success?: unknown;
        transaction?: unknown;
        amount?: unknown;
      };
      const amount = typeof settled.amount === 'string' && /^[0-9]{1,19}$/.test(settled.amount);
      return {
        txHash: settled.success === true ? txHashOf(settled.transaction) : null,
        receipt,
        settledMicros: settled.success === true && amount ? BigInt(settled.amount as string) : null,
      };
    } catch {
      return { txHash: null, receipt, settledMicros: null };
    }
  },
};

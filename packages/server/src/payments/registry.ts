// Every way this service pays a seller, registered here and nowhere else: a new method is a folder beside these
// and one line below. The order is the tie-break between equal prices (contract section 13: x402 first).
import { AppError, assert } from '../errors.ts';
import {
  type ChainIdentity,
  cheapestOffer,
  type MethodId,
  type Offer,
  type PaymentMethod,
  type Protocol,
  type SellerAnswer,
} from './method.ts';
import { mppCharge } from './mpp-charge/method.ts';
import { x402Exact } from './x402-exact/method.ts';
import { answerOfRequired, type PaymentRequiredInfo } from './x402-exact/protocol.ts';
import { x402Upto } from './x402-upto/method.ts';

export const PAYMENT_METHODS: readonly PaymentMethod[] = [x402Exact, x402Upto, mppCharge];

export function methodOf(id: string): PaymentMethod {
  const method = PAYMENT_METHODS.find((m) => m.id === id);
  assert(method !== undefined, `no payment method ${id} is registered`);
  return method;
}

/** The methods of some protocols (x402_fetch pays x402 only), or every one. */
export function methodsFor(protocols: readonly Protocol[] | null): PaymentMethod[] {
  return PAYMENT_METHODS.filter((m) => protocols === null || protocols.includes(m.protocol));
}

export interface Choice {
  /** The cheapest payable offer (a tie goes to the method registered first), or null when none is. */
  chosen: Offer | null;
  /** Every offer seen, in words: what the refusal lists when nothing is payable. */
  offered: string[];
}

/** Pure: the offer to pay among what the methods read in a seller's answer. */
export function chooseOffer(
  answer: SellerAnswer,
  methods: readonly PaymentMethod[],
  chain: ChainIdentity,
  nowMs: number,
): Choice {
  const payable: Offer[] = [];
  const offered: string[] = [];
  for (const method of methods) {
    const reading = method.offersIn(answer, chain, nowMs);
    offered.push(...reading.unpayable);
    for (const offer of reading.payable) {
      offered.push(`${method.protocol} ${method.scheme} ${offer.amountMicros} micro-USDC`);
      payable.push(offer);
    }
  }
  return { chosen: cheapestOffer(payable), offered };
}

/**
 * The x402 offer to pay among requirements the agent obtained itself (x402_sign, check_payment): every x402
 * method reads them as it reads a seller's 402; X402_UNSUPPORTED naming what was offered when none is payable.
 */
export function x402OfferIn(required: PaymentRequiredInfo, chain: ChainIdentity, nowMs: number): Offer {
  const version = required.x402Version;
  if (version !== 1 && version !== 2)
    throw new AppError('X402_UNSUPPORTED', `x402 version ${String(version).slice(0, 16)} is not supported`);
  const methods = methodsFor(['x402']);
  const { chosen, offered } = chooseOffer(answerOfRequired(required), methods, chain, nowMs);
  if (chosen !== null) return chosen;
  const schemes = methods.map((m) => m.scheme).join(' or ');
  throw new AppError(
    'X402_UNSUPPORTED',
    `no offered requirement is the ${schemes} scheme in this chain's USDC (eip155:${chain.chainId}, ${chain.usdcAddress}); offered: ${
      offered
        .map((o) => o.replace(/^x402 /, ''))
        .join('; ')
        .slice(0, 1_000) || 'nothing'
    }`,
  );
}

/** Request headers the agent may not set: those the methods write. */
export const CREDENTIAL_HEADERS: readonly string[] = PAYMENT_METHODS.flatMap((m) => m.credentialHeaders);
/** Response headers the methods read that the agent sees too. */
export const ANSWER_HEADERS: readonly string[] = PAYMENT_METHODS.flatMap((m) => m.answerHeaders);

export type { MethodId };

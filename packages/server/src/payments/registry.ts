// Every way this service pays a seller, registered here and nowhere else: a new method is a folder beside these
// and one line below. The order is the tie-break between equal prices (contract section 13: x402 first).
import { assert } from '../errors.ts';
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

export const PAYMENT_METHODS: readonly PaymentMethod[] = [x402Exact, mppCharge];

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

/** Request headers the agent may not set: those the methods write. */
export const CREDENTIAL_HEADERS: readonly string[] = PAYMENT_METHODS.flatMap((m) => m.credentialHeaders);
/** Response headers the methods read that the agent sees too. */
export const ANSWER_HEADERS: readonly string[] = PAYMENT_METHODS.flatMap((m) => m.answerHeaders);

export type { MethodId };

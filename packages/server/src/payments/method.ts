// A way to pay a seller's 402 (contract sections 4 and 13) is a module of this folder: one folder per method, each
// registered once in registry.ts. A module is the protocol's own, pure side: which offers of a seller's answer it
// can pay on this chain, the terms of the authorization the service signs for one (nonce, validity), the
// credential the request is repeated with, the EIP-712 message the treasury signs for it, and what the seller's
// final answer says of the settlement. What every method shares — the decision (every policy, exactly like
// send_payment), the debit, the treasury's signature, the chain's verdict — is the services' (services/x402/) and
// the ledger's, written once. Two things vary between methods and are declared here, not branched on elsewhere:
// what kind of authorization the chain sees (`authorization`: USDC's EIP-3009 or a Permit2 witness transfer,
// which the settlement duty and verify-ledger --chain know how to find) and whether the amount is a price or a
// maximum (`metered`: the chain's settlement says what was paid, the rest goes back to the wallet).
import type { Hex } from 'viem';

export type MethodId = 'x402-exact' | 'x402-upto' | 'mpp-charge';
/** What the treasury signs and the chain later shows used: USDC's transferWithAuthorization, or Permit2's. */
export type AuthorizationKind = 'eip3009' | 'permit2';
export type Protocol = 'x402' | 'mpp';
export type Scheme = 'exact' | 'upto' | 'charge';

/** A signed authorization is valid at least this long (sellers refuse one about to expire) … */
export const AUTHORIZATION_VALID_SECONDS_MIN = 30;
/** … and at most this long, whatever the seller asks: money signed away comes back only after it. */
export const AUTHORIZATION_VALID_SECONDS_MAX = 300;

export interface ChainIdentity {
  chainId: number;
  /** Lower-case. */
  usdcAddress: string;
}

/** A seller's answer as the methods read it. */
export interface SellerAnswer {
  /** The first value of a header (names case-insensitive), or undefined. */
  header(name: string): string | undefined;
  /** Every value of a header, in order (a header may be sent more than once). */
  headerValues(name: string): string[];
  /** The body as UTF-8 text, or null when it is not text. */
  bodyText: string | null;
}

/** One offer a method can pay: to whom, how much, and its own record of the terms. */
export interface Offer {
  method: MethodId;
  /** Lower-case address. */
  payTo: string;
  amountMicros: bigint;
  /** The method's record of the offer (what it needs to sign and answer later), stored with the payment. */
  termsJson: string;
  /** The seller's own description of the resource (x402 v2), stored with the payment; null when none. */
  resourceJson: string | null;
  /**
   * The seller's declarations of the protocol extensions the method answers in its credential (x402 v2:
   * `payment-identifier`), stored with the payment so a resumed payment answers them the same; null when none.
   */
  extensionsJson: string | null;
  /** The protocol's version the offer speaks (x402: 1 or 2; MPP: 1), stored with the payment. */
  version: number;
  /** The resource URL the offer names itself, if any (history's `resource` when the agent gives none). */
  resourceUrl: string | null;
}

/** An offer as the payment stores it: what terms and credential are built from, also after a restart. */
export type StoredOffer = Pick<Offer, 'termsJson' | 'resourceJson' | 'extensionsJson' | 'version'>;

/** The offers of one method in a seller's answer: those payable here, and in words those that are not. */
export interface OfferReading {
  payable: Offer[];
  unpayable: string[];
}

/** The nonce and validity of the EIP-3009 authorization the treasury signs for an offer. */
export interface AuthorizationTerms {
  nonce: Hex;
  /** Unix seconds. */
  validBeforeS: bigint;
}

/** The treasury's authorization before its signature: the same fields whatever the method signs them as. */
export interface AuthorizationFields {
  /** The treasury. */
  from: string;
  /** The seller's recipient. */
  to: string;
  /** The amount (a maximum for a metered method). */
  value: bigint;
  validAfter: bigint;
  /** Unix seconds: EIP-3009's validBefore, Permit2's deadline. */
  validBefore: bigint;
  /** 0x-prefixed 32 bytes (Permit2 reads it as a uint256). */
  nonce: string;
}

export interface SignedAuthorization extends AuthorizationFields {
  signature: string;
}

/** The token's EIP-712 identity, as the service reads it from the chain. */
export interface TokenDomain {
  chainId: number;
  /** Checksummed or lower-case. */
  usdcAddress: string;
  name: string;
  version: string;
}

/** An EIP-712 message as viem's signTypedData takes it. */
export interface TypedDataToSign {
  domain: { name: string; version?: string; chainId: number; verifyingContract: `0x${string}` };
  types: Record<string, ReadonlyArray<{ name: string; type: string }>>;
  primaryType: string;
  message: Record<string, unknown>;
}

/** What the paid request carries: one header. */
export interface Credential {
  headerName: string;
  header: string;
  /** The decoded credential (x402_sign answers it as `payload`, mpp_sign as `credential`). */
  payload: Record<string, unknown>;
}

/** What a seller's answer to the paid request says: its settlement's transaction hash, and its receipt as sent. */
export interface Settlement {
  /** A 0x-prefixed 32-byte hash (lower-case) when the seller names one, else null. The chain decides anyway. */
  txHash: string | null;
  receipt: string | null;
  /**
   * A metered method: the amount the seller says it settled, when it says so (0 settles nothing on chain, so only
   * its word tells a settled-nothing payment from an unused one); null otherwise. Never what is debited: the chain is.
   */
  settledMicros: bigint | null;
}

export interface PaymentMethod {
  id: MethodId;
  protocol: Protocol;
  scheme: Scheme;
  /** Request headers the agent may not set: this method writes them. */
  credentialHeaders: readonly string[];
  /** Response headers handed back to the agent with the answer. */
  answerHeaders: readonly string[];
  authorization: AuthorizationKind;
  /** The offer's amount is a maximum: held while processing, and the chain's settlement says what was paid. */
  metered: boolean;
  /** The offers of this method in a 402 answer. Throws nothing: an unreadable offer is an unpayable one. */
  offersIn(answer: SellerAnswer, chain: ChainIdentity, nowMs: number): OfferReading;
  /** The terms of the authorization for a stored offer, decided when it is signed (again after an approval). */
  terms(offer: StoredOffer, nowMs: number): AuthorizationTerms;
  /** The EIP-712 message the treasury signs for a stored offer (deterministic: the same fields, the same message). */
  typedData(offer: StoredOffer, fields: AuthorizationFields, token: TokenDomain): TypedDataToSign;
  /** The credential for a stored offer and the treasury's signed authorization. */
  credential(offer: StoredOffer, auth: SignedAuthorization): Credential;
  settlementIn(answer: SellerAnswer): Settlement;
}

/** The cheapest offer, the first of equals (the caller's order is the tie-break), or null when there is none. */
export function cheapestOffer(offers: readonly Offer[]): Offer | null {
  let chosen: Offer | null = null;
  for (const offer of offers) if (chosen === null || offer.amountMicros < chosen.amountMicros) chosen = offer;
  return chosen;
}

/** validBefore in unix seconds: `wantedSeconds` from now, kept between the bounds above. */
export function validBeforeSeconds(nowMs: number, wantedSeconds: number): bigint {
  const wanted = Number.isFinite(wantedSeconds) ? Math.floor(wantedSeconds) : AUTHORIZATION_VALID_SECONDS_MIN;
  const seconds = Math.min(
    AUTHORIZATION_VALID_SECONDS_MAX,
    Math.max(AUTHORIZATION_VALID_SECONDS_MIN, wanted),
  );
  return BigInt(Math.floor(nowMs / 1000) + seconds);
}

/** The paid URL as history shows it: scheme, host and path — never the query (it may carry secrets). */
export function resourceOf(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** A transaction hash as a seller may report it, lower-cased; null when it is not one. */
export function txHashOf(value: unknown): string | null {
  return typeof value === 'string' && /^0x[0-9a-fA-F]{64}$/.test(value) ? value.toLowerCase() : null;
}

// x402 (HTTP 402 "Payment Required", protocol v2, v1 accepted from servers), the pure part: which of the
// requirements a seller offers this service can pay (the `exact` scheme, this chain, this chain's USDC) and the
// payment payload it sends back. The decision whether the wallet may pay is the one send_payment uses
// (payment-batch.ts); HTTP and signing live in services/x402/x402.ts.
import { parseAddress } from '../../domain/address.ts';
import { AMOUNT_MAX_MICROS } from '../../domain/money.ts';
import { AppError, invalid } from '../../errors.ts';
import {
  AUTHORIZATION_VALID_SECONDS_MAX,
  AUTHORIZATION_VALID_SECONDS_MIN,
  type ChainIdentity,
  type SellerAnswer,
  type SignedAuthorization,
} from '../method.ts';

export { resourceOf, validBeforeSeconds } from '../method.ts';
export type { ChainIdentity, SignedAuthorization };
export const X402_VALID_SECONDS_MIN = AUTHORIZATION_VALID_SECONDS_MIN;
export const X402_VALID_SECONDS_MAX = AUTHORIZATION_VALID_SECONDS_MAX;
/** Requirements read from one 402 answer. */
const ACCEPTS_MAX = 32;

/** v1 network names of the chains USDC's EIP-3009 runs on (v2 names every chain `eip155:<chainId>`). */
const V1_NETWORK_CHAIN_IDS: Readonly<Record<string, number>> = {
  base: 8453,
  'base-sepolia': 84532,
  avalanche: 43114,
  'avalanche-fuji': 43113,
  polygon: 137,
  'polygon-amoy': 80002,
  ethereum: 1,
  sepolia: 11155111,
  arbitrum: 42161,
  'arbitrum-sepolia': 421614,
  optimism: 10,
  'optimism-sepolia': 11155420,
};

export interface PaymentRequiredInfo {
  x402Version: number;
  accepts: unknown[];
  resource?: unknown;
  /** x402 v2: the extensions the seller declares (extensions.ts reads those this service answers). */
  extensions?: unknown;
}

export interface ChosenRequirement {
  version: 1 | 2;
  /** The requirement exactly as the seller offered it (it goes back in the payment payload). */
  requirement: Record<string, unknown>;
  /** Lower-case. */
  payTo: string;
  amountMicros: bigint;
  maxTimeoutSeconds: number;
}

/** The requirements this service can pay, in the seller's order, and in words every one it cannot. */
export function payableRequirements(
  required: PaymentRequiredInfo,
  chain: ChainIdentity,
  scheme: 'exact' | 'upto' = 'exact',
): { payable: ChosenRequirement[]; unpayable: string[] } {
  const version = required.x402Version === 1 ? 1 : required.x402Version === 2 ? 2 : null;
  if (version === null)
    return { payable: [], unpayable: [`x402 version ${String(required.x402Version).slice(0, 16)}`] };
  const payable: ChosenRequirement[] = [];
  const unpayable: string[] = [];
  for (const offer of required.accepts.slice(0, ACCEPTS_MAX)) {
    const chosen = payableOffer(offer, version, chain, scheme);
    if (chosen !== null) payable.push(chosen);
    // Another scheme's offer is that scheme's to read (each scheme is a method of its own).
    else if (!isScheme(offer, OTHER_SCHEMES[scheme])) unpayable.push(`x402 ${describeOffer(offer)}`);
  }
  return { payable, unpayable };
}

/** The one requirement this service pays, or X402_UNSUPPORTED saying what was offered instead. */
export function chooseRequirement(required: PaymentRequiredInfo, chain: ChainIdentity): ChosenRequirement {
  const version = required.x402Version === 1 ? 1 : required.x402Version === 2 ? 2 : null;
  if (version === null)
    throw unsupported(`x402 version ${String(required.x402Version).slice(0, 16)} is not supported`);
  const { payable, unpayable } = payableRequirements(required, chain);
  if (payable[0] !== undefined) return payable[0];
  const offered = unpayable.map((words) => words.replace(/^x402 /, '')).join('; ') || 'nothing';
  throw unsupported(
    `no offered requirement is the exact scheme in this chain's USDC (eip155:${chain.chainId}, ${chain.usdcAddress}); offered: ${offered}`,
  );
}

/** The x402 schemes this service pays, each read by its own method. */
const OTHER_SCHEMES = { exact: 'upto', upto: 'exact' } as const;

function isScheme(offer: unknown, scheme: string): boolean {
  return offer !== null && typeof offer === 'object' && (offer as { scheme?: unknown }).scheme === scheme;
}

function payableOffer(
  offer: unknown,
  version: 1 | 2,
  chain: ChainIdentity,
  scheme: 'exact' | 'upto',
): ChosenRequirement | null {
  if (offer === null || typeof offer !== 'object' || Array.isArray(offer)) return null;
  const r = offer as Record<string, unknown>;
  if (r.scheme !== scheme || networkChainId(r.network) !== chain.chainId) return null;
  if (typeof r.asset !== 'string' || r.asset.toLowerCase() !== chain.usdcAddress) return null;
  const payTo = parseAddress(r.payTo);
  const amount = version === 1 ? r.maxAmountRequired : r.amount;
  if (!payTo.ok || typeof amount !== 'string' || !/^[1-9][0-9]{0,18}$/.test(amount)) return null;
  // A payment's own bound (the same as send_payment's amount): a larger price is not an offer to take.
  const amountMicros = BigInt(amount);
  if (amountMicros > AMOUNT_MAX_MICROS) return null;
  const timeout = typeof r.maxTimeoutSeconds === 'number' ? r.maxTimeoutSeconds : X402_VALID_SECONDS_MIN;
  return { version, requirement: r, payTo: payTo.lower, amountMicros, maxTimeoutSeconds: timeout };
}

/** `eip155:<id>` (v2, and v1 servers that use it) or a v1 network name; null when neither. */
export function networkChainId(network: unknown): number | null {
  if (typeof network !== 'string') return null;
  const caip = /^eip155:([0-9]{1,12})$/.exec(network);
  if (caip !== null) return Number(caip[1]);
  return V1_NETWORK_CHAIN_IDS[network] ?? null;
}

function describeOffer(offer: unknown): string {
  if (offer === null || typeof offer !== 'object') return 'an unreadable requirement';
  const r = offer as Record<string, unknown>;
  return [r.scheme, r.network, r.asset].map((v) => String(v).slice(0, 64)).join(' ');
}

function unsupported(message: string): AppError {
  return new AppError('X402_UNSUPPORTED', message);
}

/** A requirement, a list of them, or a whole 402 answer (`{x402Version, accepts, resource}`). */
export function requiredOf(value: unknown): PaymentRequiredInfo {
  if (Array.isArray(value)) return { x402Version: versionOfRequirement(value[0]), accepts: value };
  if (value === null || typeof value !== 'object') throw invalid('paymentRequirements must be an object');
  const object = value as Record<string, unknown>;
  if (Array.isArray(object.accepts)) {
    return {
      x402Version: typeof object.x402Version === 'number' ? object.x402Version : 2,
      accepts: object.accepts,
      resource: object.resource,
      ...(object.extensions === undefined ? {} : { extensions: object.extensions }),
    };
  }
  return { x402Version: versionOfRequirement(object), accepts: [object] };
}

/**
 * Requirements the agent obtained itself (x402_sign, check_payment) as a seller's 402 answer would carry them — a
 * v2 PAYMENT-REQUIRED header, or a v1 body — so every x402 method reads them exactly as it reads a seller.
 */
export function answerOfRequired(required: PaymentRequiredInfo): SellerAnswer {
  const v1 = required.x402Version === 1;
  const header = v1 ? undefined : Buffer.from(JSON.stringify(required), 'utf8').toString('base64');
  return {
    header: (name) => (name.toLowerCase() === 'payment-required' ? header : undefined),
    headerValues: (name) =>
      name.toLowerCase() === 'payment-required' && header !== undefined ? [header] : [],
    bodyText: v1 ? JSON.stringify(required) : null,
  };
}

const versionOfRequirement = (requirement: unknown) =>
  requirement !== null && typeof requirement === 'object' && 'maxAmountRequired' in requirement ? 1 : 2;

/** What goes in the PAYMENT-SIGNATURE (v2) or X-PAYMENT (v1) header, before base64. */
export function paymentPayloadOf(
  chosen: Pick<ChosenRequirement, 'version' | 'requirement'>,
  resource: unknown,
  auth: SignedAuthorization,
  extensions?: Record<string, unknown>,
): Record<string, unknown> {
  const payload = {
    signature: auth.signature,
    authorization: {
      from: auth.from,
      to: auth.to,
      value: auth.value.toString(),
      validAfter: auth.validAfter.toString(),
      validBefore: auth.validBefore.toString(),
      nonce: auth.nonce,
    },
  };
  if (chosen.version === 1) {
    const { scheme, network } = chosen.requirement;
    return { x402Version: 1, scheme, network, payload };
  }
  return {
    x402Version: 2,
    ...(resource === undefined || resource === null ? {} : { resource }),
    accepted: chosen.requirement,
    payload,
    ...(extensions === undefined ? {} : { extensions }),
  };
}

export function paymentHeaderName(version: 1 | 2): string {
  return version === 1 ? 'X-PAYMENT' : 'PAYMENT-SIGNATURE';
}

export function encodePaymentHeader(payload: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64');
}

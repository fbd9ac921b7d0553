// MPP (the `Payment` HTTP authentication scheme, as mppx 0.11 speaks it) as a payment method: a 402 carries one or
// more `WWW-Authenticate: Payment id=…, realm=…, method=…, intent=…, request=…` challenges. Payable here: intent
// `charge` of method `evm` on this chain, in its USDC, accepting credential type `authorization` — an EIP-3009
// authorization whose nonce is the challenge's own hash (keccak256 of id and realm, so one challenge can only ever
// be paid once on chain) and whose validity ends at the challenge's `expires`, within the service's bounds. The
// request is repeated with `Authorization: Payment <credential>`; the seller's `Payment-Receipt` names the
// settlement. Parsing and serialising are mppx's own (Challenge, Credential, Receipt).
import { Challenge, Credential, Receipt } from 'mppx';
import { challengeHash, toSource } from 'mppx/evm';
import { getAddress, type Hex } from 'viem';
import { parseAddress } from '../../domain/address.ts';
import { AMOUNT_MAX_MICROS } from '../../domain/money.ts';
import { AppError, invalid } from '../../errors.ts';
import { eip3009TypedData } from '../eip3009.ts';
import { METHOD_KINDS } from '../kinds.ts';
import {
  AUTHORIZATION_VALID_SECONDS_MIN,
  type ChainIdentity,
  cheapestOffer,
  type Offer,
  type OfferReading,
  type Credential as PaidCredential,
  type PaymentMethod,
  type SellerAnswer,
  type StoredOffer,
  txHashOf,
  validBeforeSeconds,
} from '../method.ts';

/** Challenges read from one answer (several headers, or several challenges in one). */
const CHALLENGES_MAX = 16;
/** USDC has 6 decimals: a challenge naming others is not in micro-units. */
const USDC_DECIMALS = 6;

export type MppChallenge = ReturnType<typeof Challenge.deserialize>;

/**
 * The challenges of a `WWW-Authenticate` value (several may be comma-joined) or of several values; what cannot be
 * read is named in `unreadable`.
 */
export function challengesIn(values: readonly string[]): {
  challenges: MppChallenge[];
  unreadable: string[];
} {
  const challenges: MppChallenge[] = [];
  const unreadable: string[] = [];
  for (const value of values) {
    if (!/(^|,)\s*payment\s/i.test(value)) continue;
    try {
      challenges.push(...Challenge.deserializeList(value));
    } catch (error) {
      unreadable.push(`an unreadable Payment challenge (${(error as Error).message.slice(0, 80)})`);
    }
  }
  return { challenges: challenges.slice(0, CHALLENGES_MAX), unreadable };
}

/** A challenge object as the MCP transport carries it (`data.challenges[i]`), checked by mppx's schema. */
export function challengeFromObject(value: unknown): MppChallenge | null {
  const parsed = Challenge.Schema.safeParse(value);
  return parsed.success ? (parsed.data as MppChallenge) : null;
}

/** The offer of a challenge this service can pay, or in words why it cannot. */
export function offerOfChallenge(
  challenge: MppChallenge,
  chain: ChainIdentity,
  nowMs: number,
): Offer | string {
  const describe = (why: string) =>
    `mpp ${String(challenge.method).slice(0, 32)} ${String(challenge.intent).slice(0, 32)} (${why})`;
  if (challenge.method !== 'evm' || challenge.intent !== 'charge') return describe('not an evm charge');
  const request = challenge.request as Record<string, unknown>;
  const details = (request.methodDetails ?? {}) as Record<string, unknown>;
  if (details.chainId !== chain.chainId) return describe(`chain ${String(details.chainId).slice(0, 16)}`);
  if (typeof request.currency !== 'string' || request.currency.toLowerCase() !== chain.usdcAddress)
    return describe(`currency ${String(request.currency).slice(0, 42)}`);
  if (details.decimals !== undefined && details.decimals !== USDC_DECIMALS) return describe('decimals');
  const types = details.credentialTypes;
  if (!Array.isArray(types) || !types.includes('authorization'))
    return describe('no authorization credential');
  if (Array.isArray(details.splits) && details.splits.length > 0) return describe('splits');
  const recipient = parseAddress(request.recipient);
  const amount = request.amount;
  if (!recipient.ok || typeof amount !== 'string' || !/^[1-9][0-9]{0,18}$/.test(amount))
    return describe('unreadable amount or recipient');
  const amountMicros = BigInt(amount);
  if (amountMicros > AMOUNT_MAX_MICROS) return describe('above the largest payment');
  if (secondsLeft(challenge, nowMs) < AUTHORIZATION_VALID_SECONDS_MIN) return describe('expired');
  return {
    method: 'mpp-charge',
    payTo: recipient.lower,
    amountMicros,
    termsJson: JSON.stringify(challenge),
    resourceJson: null,
    extensionsJson: null,
    version: 1,
    resourceUrl: realmResource(challenge),
  };
}

/** The payable offers of some challenges, and in words the others (after those that could not be read). */
function readingOf(
  challenges: readonly MppChallenge[],
  unreadable: readonly string[],
  chain: ChainIdentity,
  nowMs: number,
): OfferReading {
  const payable: Offer[] = [];
  const unpayable = [...unreadable];
  for (const challenge of challenges) {
    const offer = offerOfChallenge(challenge, chain, nowMs);
    if (typeof offer === 'string') unpayable.push(offer);
    else payable.push(offer);
  }
  return { payable, unpayable };
}

/** Seconds until the challenge expires (a challenge without `expires` is good for the service's longest validity). */
function secondsLeft(challenge: Pick<MppChallenge, 'expires'>, nowMs: number): number {
  if (challenge.expires === undefined) return Number.POSITIVE_INFINITY;
  return Math.floor((Date.parse(challenge.expires) - nowMs) / 1000);
}

/**
 * The one challenge to pay among those given (a `WWW-Authenticate` value, or a challenge object as MCP carries it):
 * the cheapest payable one. 400 when none can be read, 422 PAYMENT_UNSUPPORTED naming what was offered when none
 * can be paid here.
 */
export function challengeToPay(
  given: string | Record<string, unknown>,
  chain: ChainIdentity,
  nowMs: number,
): Offer {
  const read =
    typeof given === 'string'
      ? challengesIn([given])
      : { challenges: [challengeFromObject(given)].filter((c) => c !== null), unreadable: [] };
  if (read.challenges.length === 0) {
    const why = read.unreadable.length > 0 ? ` (${read.unreadable.join('; ')})` : '';
    throw invalid(`params.challenge: not a readable Payment challenge${why}`);
  }
  const reading = readingOf(read.challenges, read.unreadable, chain, nowMs);
  const chosen = cheapestOffer(reading.payable);
  if (chosen !== null) return chosen;
  throw new AppError(
    'PAYMENT_UNSUPPORTED',
    `no challenge is payable here (mpp evm charge in this chain's USDC, eip155:${chain.chainId}); offered: ${reading.unpayable.join('; ').slice(0, 1_000)}`,
  );
}

/** The seller's host of a challenge: its realm, when the realm is a host (history and merchant lists use it). */
export function realmResource(challenge: Pick<MppChallenge, 'realm'>): string {
  const realm = challenge.realm;
  try {
    const url = new URL(/^https?:\/\//.test(realm) ? realm : `https://${realm}`);
    return `${url.origin}${url.pathname}`;
  } catch {
    return `mpp realm ${realm.slice(0, 200)}`;
  }
}

const storedChallenge = (offer: StoredOffer) => JSON.parse(offer.termsJson) as MppChallenge;

/** The credential object (for MCP's `_meta`) and its header value. */
export function credentialOf(offer: StoredOffer, auth: Parameters<PaymentMethod['credential']>[1]) {
  const challenge = storedChallenge(offer);
  const chainId = (challenge.request as { methodDetails: { chainId: number } }).methodDetails.chainId;
  const from = getAddress(auth.from);
  const credential = Credential.from({
    challenge,
    payload: {
      from,
      nonce: auth.nonce,
      signature: auth.signature,
      to: getAddress(auth.to),
      type: 'authorization',
      validAfter: auth.validAfter.toString(),
      validBefore: auth.validBefore.toString(),
      value: auth.value.toString(),
    },
    source: toSource({ address: from, chainId }),
  });
  return { credential, header: Credential.serialize(credential) };
}

export const mppCharge: PaymentMethod = {
  id: 'mpp-charge',
  ...METHOD_KINDS['mpp-charge'],
  credentialHeaders: [],
  answerHeaders: ['www-authenticate', 'payment-receipt'],
  authorization: 'eip3009',
  metered: false,
  offersIn(answer: SellerAnswer, chain, nowMs): OfferReading {
    const { challenges, unreadable } = challengesIn(answer.headerValues('www-authenticate'));
    return readingOf(challenges, unreadable, chain, nowMs);
  },
  terms(offer, nowMs) {
    const challenge = storedChallenge(offer);
    return {
      nonce: challengeHash({ id: challenge.id, realm: challenge.realm }) as Hex,
      validBeforeS: validBeforeSeconds(nowMs, secondsLeft(challenge, nowMs)),
    };
  },
  typedData: (_offer, fields, token) => eip3009TypedData(fields, token),
  credential(offer, auth): PaidCredential {
    const { credential, header } = credentialOf(offer, auth);
    const headerName = storedChallenge(offer).header ?? 'Authorization';
    return { headerName, header, payload: credential as unknown as Record<string, unknown> };
  },
  settlementIn(answer) {
    const receipt = answer.header('payment-receipt') ?? null;
    if (receipt === null) return { txHash: null, receipt, settledMicros: null };
    try {
      return { txHash: txHashOf(Receipt.deserialize(receipt).reference), receipt, settledMicros: null };
    } catch {
      return { txHash: null, receipt, settledMicros: null };
    }
  },
};

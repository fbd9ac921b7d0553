// Paying sellers (contract sections 4 and 13): x402_fetch and paid_fetch ask an HTTP resource for an agent, x402_sign
// and mpp_sign sign for a 402 the agent received itself — every one under the same decision as send_payment. On a
// 402 the fetch reads the offers of the methods it may use (payments/registry.ts: x402 only for x402_fetch, every
// method for paid_fetch), takes the cheapest payable one, refuses a price above maxAmount before anything else,
// lets the ledger writer decide and debit it (nothing is signed unless the payment is allowed), signs the
// treasury's authorization as that method's credential and asks again with it. With an idempotency key every retry
// resumes from what is stored — a decision is never taken twice, an authorization never signed twice, and a final
// answer is replayed without asking the resource again.
import { isSignedState, type OwnersWait } from '../../domain/money/batch-state.ts';
import { formatMicros } from '../../domain/money.ts';
import { failure, type Outcome, success } from '../../domain/outcome.ts';
import { AppError, type ErrorCode } from '../../errors.ts';
import {
  type ChainIdentity,
  type Offer,
  type PaymentMethod,
  type Protocol,
  resourceOf,
} from '../../payments/method.ts';
import { challengeToPay } from '../../payments/mpp-charge/method.ts';
import { chooseOffer, methodOf, methodsFor, x402OfferIn } from '../../payments/registry.ts';
import { type PaymentRequiredInfo, requiredOf } from '../../payments/x402-exact/protocol.ts';
import { idempotencyClaim, keyScope } from '../money/idempotency.ts';
import type { AgentKeyRef } from '../money/payments.ts';
import { refuseUntilApproved } from './permit2-approval.ts';
import { confirmX402 } from './settle.ts';
import {
  type Claim,
  claimApproved,
  decideX402,
  findX402Row,
  keepReceipt,
  type PaymentView,
  paymentNow,
  paymentOfNonce,
  refuseFrozen,
  signRow,
  storedOutcome,
  storeFinal,
  txIdOf,
  type X402Deps,
  x402Row,
} from './sign.ts';
import {
  answerForAgent,
  callUpstream,
  sellerAnswerOf,
  type UpstreamRequest,
  upstreamHeaders,
  upstreamUrl,
} from './upstream.ts';

export interface X402FetchParams {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | null;
  maxAmountMicros: bigint;
  memo: string | null;
}

export interface X402SignParams {
  paymentRequirements: unknown;
  resource: string | null;
  memo: string | null;
}

export interface MppSignParams {
  /** A `WWW-Authenticate` value (one or more challenges), or a challenge object as MCP carries it. */
  challenge: string | Record<string, unknown>;
  memo: string | null;
}

export interface X402Service {
  /** x402_fetch: pays x402 offers only. */
  fetch(key: AgentKeyRef, params: X402FetchParams, idempotencyKey: string | null): Promise<Outcome<unknown>>;
  /** paid_fetch: pays the cheapest offer of any registered method. */
  paidFetch(
    key: AgentKeyRef,
    params: X402FetchParams,
    idempotencyKey: string | null,
  ): Promise<Outcome<unknown>>;
  sign(key: AgentKeyRef, params: X402SignParams, idempotencyKey: string | null): Promise<Outcome<unknown>>;
  mppSign(key: AgentKeyRef, params: MppSignParams, idempotencyKey: string | null): Promise<Outcome<unknown>>;
}

/** What a fetch may pay with, and the codes its refusals carry (x402_fetch keeps its own, paid_fetch has PAYMENT_). */
interface FetchKind {
  tool: 'x402_fetch' | 'paid_fetch';
  protocols: readonly Protocol[] | null;
  codes: { tooHigh: ErrorCode; unsupported: ErrorCode; upstream: ErrorCode };
}

const X402_FETCH: FetchKind = {
  tool: 'x402_fetch',
  protocols: ['x402'],
  codes: { tooHigh: 'X402_PRICE_TOO_HIGH', unsupported: 'X402_UNSUPPORTED', upstream: 'X402_UPSTREAM_ERROR' },
};
const PAID_FETCH: FetchKind = {
  tool: 'paid_fetch',
  protocols: null,
  codes: {
    tooHigh: 'PAYMENT_PRICE_TOO_HIGH',
    unsupported: 'PAYMENT_UNSUPPORTED',
    upstream: 'PAYMENT_UPSTREAM_ERROR',
  },
};

/** Runs one call per id at a time on this instance; a second caller with the id gets the first one's answer. */
type Once = (id: string | null, run: () => Promise<Outcome<unknown>>) => Promise<Outcome<unknown>>;

export function createX402Service(deps: X402Deps): X402Service {
  // Identical calls at the same instant on this instance share one run: one decision, one paid request.
  const inFlight = new Map<string, Promise<Outcome<unknown>>>();
  function once(id: string | null, run: () => Promise<Outcome<unknown>>): Promise<Outcome<unknown>> {
    if (id === null) return run();
    const running = inFlight.get(id);
    if (running !== undefined) return running;
    const started = run().finally(() => inFlight.delete(id));
    inFlight.set(id, started);
    return started;
  }
  return {
    fetch: (key, params, idempotencyKey) =>
      once(idempotencyKey && `fetch\n${key.walletId}\n${idempotencyKey}`, () =>
        fetchFor(deps, X402_FETCH, key, params, idempotencyKey),
      ),
    paidFetch: (key, params, idempotencyKey) =>
      once(idempotencyKey && `paid\n${key.walletId}\n${idempotencyKey}`, () =>
        fetchFor(deps, PAID_FETCH, key, params, idempotencyKey),
      ),
    sign: (key, params, idempotencyKey) =>
      once(idempotencyKey && `sign\n${key.walletId}\n${idempotencyKey}`, () =>
        signFor(deps, key, params, idempotencyKey),
      ),
    mppSign: (key, params, idempotencyKey) =>
      once(idempotencyKey && `mpp\n${key.walletId}\n${idempotencyKey}`, () =>
        mppSignFor(deps, key, params, idempotencyKey, once),
      ),
  };
}

const chainOf = (deps: X402Deps): ChainIdentity => ({
  chainId: deps.rail.config.chainId,
  usdcAddress: deps.rail.config.usdcAddress.toLowerCase(),
});

async function fetchFor(
  deps: X402Deps,
  kind: FetchKind,
  key: AgentKeyRef,
  params: X402FetchParams,
  idempotencyKey: string | null,
): Promise<Outcome<unknown>> {
  const request: UpstreamRequest = {
    url: upstreamUrl(params.url, deps.allowPrivate),
    method: params.method,
    headers: upstreamHeaders(params.headers),
    body: params.body,
  };
  const claim = idempotencyClaim(keyScope.wallet(key.walletId), idempotencyKey, fetchKeyParts(kind, params));
  const stored = claim === null ? null : await storedOutcome(deps, claim);
  if (stored !== null) return resumeFetch(deps, kind, request, stored, claim);
  // A write tool: a frozen wallet asks nothing, paid or free.
  await refuseFrozen(deps, key.walletId);
  const first = await callUpstream(request, {}, upstreamOptions(deps, kind, undefined));
  if (first.status !== 402) return success({ ...answerForAgent(first), payment: null });
  const offer = offerToPay(deps, kind, sellerAnswerOf(first));
  refuseAbove(kind, offer.amountMicros, params.maxAmountMicros);
  const owners = await coverOrWait(deps, offer.amountMicros);
  await refuseUntilApproved(deps, methodOf(offer.method).authorization, key.walletId);
  const decided = await decideX402(deps, key, {
    offer,
    resource: resourceOf(request.url),
    memo: params.memo,
    claim,
    owners,
  });
  if (decided.replayed) return resumeFetch(deps, kind, request, decided.outcome, claim);
  const outcome = decided.outcome;
  if (!outcome.ok) return outcome;
  const txId = txIdOf(outcome)!;
  if ((outcome.data as { status: string }).status === 'pending') {
    const pending = success({ ...answerForAgent(first), payment: await paymentNow(deps, txId) });
    await storeFinal(deps, claim, pending);
    return pending;
  }
  return payAndStore(deps, kind, request, txId, claim);
}

const upstreamOptions = (
  deps: X402Deps,
  kind: FetchKind,
  failureData: Record<string, unknown> | undefined,
) => ({
  allowPrivate: deps.allowPrivate,
  failureData,
  upstreamCode: kind.codes.upstream,
});

/**
 * The cheapest offer of a 402 the fetch may pay. A 402 that offers nothing readable is out of protocol (the
 * upstream code); one that offers only what this service cannot pay is `unsupported`, naming what was offered.
 */
function offerToPay(deps: X402Deps, kind: FetchKind, answer: ReturnType<typeof sellerAnswerOf>): Offer {
  const methods = methodsFor(kind.protocols);
  const chain = chainOf(deps);
  const { chosen, offered } = chooseOffer(answer, methods, chain, deps.ctx.clock.nowMs());
  if (chosen !== null) return chosen;
  if (offered.length === 0)
    throw new AppError(
      kind.codes.upstream,
      `the resource answered 402 without readable ${kind.tool === 'x402_fetch' ? 'x402 payment requirements' : 'payment offers (x402 or MPP)'}; nothing was paid`,
    );
  throw new AppError(
    kind.codes.unsupported,
    `nothing offered is payable here (${payableHere(methods, chain)}); offered: ${offered.join('; ').slice(0, 1_000)}`,
  );
}

/** In words, what this service pays on this chain. */
function payableHere(methods: readonly PaymentMethod[], chain: ChainIdentity): string {
  const ways = methods.map((m) => `${m.protocol} ${m.scheme}`).join(', ');
  return `${ways} in this chain's USDC (eip155:${chain.chainId}, ${chain.usdcAddress})`;
}

function refuseAbove(kind: FetchKind, amountMicros: bigint, maxAmountMicros: bigint): void {
  if (amountMicros <= maxAmountMicros) return;
  throw new AppError(
    kind.codes.tooHigh,
    `the resource asks ${formatMicros(amountMicros)} USDC, above maxAmount ${formatMicros(maxAmountMicros)}; nothing was signed`,
  );
}

/**
 * The treasury signs every authorization: one it cannot cover would fail at the seller and come back only after
 * validBefore, so it is refused (503) before anything is decided or debited — on a fresh reading, never on one
 * taken before a sweep landed. Gas is the facilitator's. In bounded mode, one more than the float and the whole
 * remaining allowance is not refused: it waits for the owners (their top-up of the float), returned here.
 */
async function coverOrWait(deps: X402Deps, amountMicros: bigint): Promise<OwnersWait | undefined> {
  const wait = deps.owners === null ? null : await deps.owners.waitFor('', amountMicros, 'payment');
  if (wait !== null) return wait;
  const refusal = await deps.rail.treasury.refusal(amountMicros, 0n, 'payment');
  if (refusal !== null) throw new AppError('SERVICE_UNAVAILABLE', refusal);
  return undefined;
}

/** Signs, asks the resource again with the payment, and stores the answer as the key's final outcome. */
async function payAndStore(
  deps: X402Deps,
  kind: FetchKind,
  request: UpstreamRequest,
  txId: string,
  claim: Claim | null,
): Promise<Outcome<unknown>> {
  const row = await x402Row(deps, txId);
  const signed = await signRow(deps, row);
  crashIf('x402-after-sign');
  let outcome: Outcome<unknown>;
  try {
    const answer = await callUpstream(
      request,
      { [signed.headerName]: signed.header },
      upstreamOptions(deps, kind, { payment: await paymentNow(deps, txId) }),
    );
    const settlement = methodOf(row.method).settlementIn(sellerAnswerOf(answer));
    if (settlement.receipt !== null) await keepReceipt(deps, txId, settlement.receipt);
    if (settlement.txHash !== null) await confirmX402(deps, row, settlement.txHash);
    const payment = await paymentNow(deps, txId);
    outcome =
      answer.status === 402
        ? failure(kind.codes.upstream, paidTwiceMessage(request.url), { data: { payment } })
        : success({ ...answerForAgent(answer), payment });
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== kind.codes.upstream) throw error;
    outcome = failure(error.code, error.message, { data: { payment: await paymentNow(deps, txId) } });
  }
  await storeFinal(deps, claim, outcome);
  return outcome;
}

const paidTwiceMessage = (url: URL) =>
  `${url.host} answered 402 again after the payment was sent; no second payment was made, and an authorization it does not use returns to the wallet when it expires`;

/** A retry under a key already used: pay an approved payment, replay a final answer, or resume a crash. */
async function resumeFetch(
  deps: X402Deps,
  kind: FetchKind,
  request: UpstreamRequest,
  stored: Outcome<unknown>,
  claim: Claim | null,
): Promise<Outcome<unknown>> {
  const txId = txIdOf(stored);
  const row = txId === null ? undefined : await findX402Row(deps, txId);
  if (txId === null || row === undefined) return stored;
  if (row.state === 'approved' && (await claimApproved(deps, row)))
    return payAndStore(deps, kind, request, txId, claim);
  const payment = await paymentNow(deps, txId);
  if (isFinalFetch(stored)) return withPayment(stored, payment);
  const validMs = Number(row.valid_before_s ?? 0n) * 1000 - deps.ctx.clock.nowMs();
  if (isSignedState(row.state) && validMs > RESEND_MARGIN_MS)
    return payAndStore(deps, kind, request, txId, claim);
  return failure(kind.codes.upstream, 'an earlier attempt with this key ended before the resource answered', {
    data: { payment },
  });
}

/**
 * Fault injection for the crash tests (test/x402-crash.test.ts), never set in production: the process kills
 * itself after signing, before the resource is asked, exactly as a power cut would.
 */
function crashIf(point: 'x402-after-sign'): void {
  if (process.env.AGENT_WALLET_TEST_CRASH === point) process.kill(process.pid, 'SIGKILL');
}

/** A signed authorization is sent again (same nonce: it can settle once) only while this much validity remains. */
const RESEND_MARGIN_MS = 10_000;

function isFinalFetch(outcome: Outcome<unknown>): boolean {
  return !outcome.ok || Object.hasOwn(outcome.data as object, 'payment');
}

function withPayment(outcome: Outcome<unknown>, payment: PaymentView): Outcome<unknown> {
  if (outcome.ok) return success({ ...(outcome.data as object), payment });
  if (outcome.data?.payment === undefined) return outcome;
  return { ...outcome, data: { ...outcome.data, payment } };
}

function fetchKeyParts(kind: FetchKind, params: X402FetchParams) {
  const headers = Object.entries(params.headers)
    .map(([name, value]) => [name.toLowerCase(), value])
    .sort();
  return {
    tool: kind.tool,
    url: params.url,
    method: params.method,
    headers: JSON.stringify(headers),
    body: params.body,
    maxAmountMicros: params.maxAmountMicros.toString(),
    memo: params.memo,
  };
}

// ---- x402_sign -------------------------------------------------------------------------------------------

async function signFor(
  deps: X402Deps,
  key: AgentKeyRef,
  params: X402SignParams,
  idempotencyKey: string | null,
): Promise<Outcome<unknown>> {
  const required = requiredOf(params.paymentRequirements);
  const offer = x402OfferIn(required, chainOf(deps), deps.ctx.clock.nowMs());
  const claim = idempotencyClaim(keyScope.wallet(key.walletId), idempotencyKey, signKeyParts(params));
  const stored = claim === null ? null : await storedOutcome(deps, claim);
  if (stored !== null) return signedAnswer(deps, stored);
  await refuseFrozen(deps, key.walletId);
  const owners = await coverOrWait(deps, offer.amountMicros);
  await refuseUntilApproved(deps, methodOf(offer.method).authorization, key.walletId);
  const decided = await decideX402(deps, key, {
    offer,
    resource: params.resource ?? resourceNamed(required, offer),
    memo: params.memo,
    claim,
    owners,
  });
  return signedAnswer(deps, decided.outcome);
}

/**
 * A decided payment as it stands now — claimed for signing first if the owner approved it — or null when there is
 * nothing to sign (a refusal, a denial: no paid request was recorded).
 */
async function decidedNow(deps: X402Deps, decision: Outcome<unknown>) {
  const txId = txIdOf(decision);
  const row = txId === null ? undefined : await findX402Row(deps, txId);
  if (!decision.ok || txId === null || row === undefined) return null;
  if (row.state === 'approved') await claimApproved(deps, row);
  return { txId, current: await x402Row(deps, txId), payment: await paymentNow(deps, txId) };
}

/** The header for a decided payment: signed (again: the same one) when paid or approved, else its status. */
async function signedAnswer(deps: X402Deps, decision: Outcome<unknown>): Promise<Outcome<unknown>> {
  const now = await decidedNow(deps, decision);
  if (now === null) return decision;
  const { txId, current, payment } = now;
  const base = { txId, status: payment.status, amount: payment.amount, payTo: payment.payTo };
  if (current.nonce === null) return success({ ...base, header: null, payload: null, validBefore: null });
  const signed = await signRow(deps, current);
  return success({
    ...base,
    header: signed.header,
    payload: signed.payload,
    validBefore: signed.validBefore,
  });
}

/** History's resource when the agent names none: the 402's resource URL (v2) or the requirement's (v1). */
function resourceNamed(required: PaymentRequiredInfo, offer: Offer): string {
  const candidates = [(required.resource as { url?: unknown } | undefined)?.url, offer.resourceUrl];
  for (const candidate of candidates) {
    if (typeof candidate !== 'string') continue;
    try {
      return resourceOf(new URL(candidate));
    } catch {}
  }
  return 'x402 resource (not named)';
}

function signKeyParts(params: X402SignParams) {
  return {
    tool: 'x402_sign',
    paymentRequirements: JSON.stringify(params.paymentRequirements),
    resource: params.resource,
    memo: params.memo,
  };
}

// ---- mpp_sign --------------------------------------------------------------------------------------------

/**
 * mpp_sign: the credential for an MPP challenge the agent received itself (an HTTP 402's `WWW-Authenticate`, or
 * a paid MCP tool's challenge object). Never paid twice: a challenge's nonce is its own hash, so the same
 * challenge signed again — by a retry without an idempotency key, or by another call — answers the payment that
 * already holds it (this wallet's), or is refused (another wallet's).
 */
async function mppSignFor(
  deps: X402Deps,
  key: AgentKeyRef,
  params: MppSignParams,
  idempotencyKey: string | null,
  once: Once,
): Promise<Outcome<unknown>> {
  const offer = challengeToPay(params.challenge, chainOf(deps), deps.ctx.clock.nowMs());
  const claim = idempotencyClaim(keyScope.wallet(key.walletId), idempotencyKey, mppKeyParts(params));
  const stored = claim === null ? null : await storedOutcome(deps, claim);
  if (stored !== null) return mppAnswer(deps, stored);
  await refuseFrozen(deps, key.walletId);
  const nonce = methodOf(offer.method).terms(offer, deps.ctx.clock.nowMs()).nonce;
  // One challenge at a time per wallet on this instance: two calls with it at once share one decision.
  return once(`nonce\n${key.walletId}\n${nonce}`, () =>
    payChallenge(deps, key, offer, nonce, params.memo, claim),
  );
}

async function payChallenge(
  deps: X402Deps,
  key: AgentKeyRef,
  offer: Offer,
  nonce: string,
  memo: string | null,
  claim: Claim | null,
): Promise<Outcome<unknown>> {
  const holder = await paymentOfNonce(deps, nonce);
  if (holder !== undefined) {
    if (holder.wallet_id !== key.walletId)
      throw new AppError(
        'INVALID_STATE',
        'this challenge was already paid by another wallet; ask the seller for a new one',
      );
    return mppAnswer(deps, success({ txId: holder.transaction_id }));
  }
  const owners = await coverOrWait(deps, offer.amountMicros);
  await refuseUntilApproved(deps, methodOf(offer.method).authorization, key.walletId);
  const decided = await decideX402(deps, key, {
    offer,
    resource: offer.resourceUrl ?? 'an MPP seller (not named)',
    memo,
    claim,
    owners,
  });
  return mppAnswer(deps, decided.outcome);
}

/** The credential for a decided payment: signed (again: the same one) when paid or approved, else its status. */
async function mppAnswer(deps: X402Deps, decision: Outcome<unknown>): Promise<Outcome<unknown>> {
  const now = await decidedNow(deps, decision);
  if (now === null) return decision;
  const { txId, current, payment } = now;
  const challenge = JSON.parse(current.requirement_json) as { expires?: string };
  const base = {
    txId,
    status: payment.status,
    amount: payment.amount,
    recipient: payment.payTo,
    expires: challenge.expires ?? null,
  };
  if (current.nonce === null) return success({ ...base, authorization: null, credential: null });
  const signed = await signRow(deps, current);
  return success({ ...base, authorization: signed.header, credential: signed.payload });
}

function mppKeyParts(params: MppSignParams) {
  return {
    tool: 'mpp_sign',
    challenge: typeof params.challenge === 'string' ? params.challenge : JSON.stringify(params.challenge),
    memo: params.memo,
  };
}

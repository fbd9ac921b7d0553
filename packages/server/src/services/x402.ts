// x402_fetch and x402_sign (contract section 4, "x402"): an agent pays for an HTTP resource from its wallet, under
// the same decision as send_payment. x402_fetch asks the resource; on a 402 it picks the requirement this service
// can pay, refuses a price above maxAmount before anything else, lets the ledger writer decide and debit it
// (nothing is signed unless the payment is allowed), signs the treasury's authorization and asks again with it.
// With an idempotency key every retry resumes from what is stored — a decision is never taken twice, an
// authorization never signed twice, and a final answer is replayed without asking the resource again.
import { formatMicros } from '../domain/money.ts';
import { failure, type Outcome, success } from '../domain/outcome.ts';
import {
  type ChosenRequirement,
  chooseRequirement,
  type PaymentRequiredInfo,
  requiredOf,
  resourceOf,
} from '../domain/x402.ts';
import { AppError } from '../errors.ts';
import { requestFingerprint } from './idempotency.ts';
import type { AgentKeyRef } from './payments.ts';
import { confirmX402 } from './x402-settle.ts';
import {
  type Claim,
  claimApproved,
  decideX402,
  findX402Row,
  type PaymentView,
  paymentNow,
  refuseFrozen,
  signRow,
  storedOutcome,
  storeFinal,
  txIdOf,
  type X402Deps,
  x402Row,
} from './x402-sign.ts';
import {
  answerForAgent,
  callUpstream,
  paymentRequiredOf,
  settlementOf,
  type UpstreamRequest,
  upstreamHeaders,
  upstreamUrl,
} from './x402-upstream.ts';

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

export interface X402Service {
  fetch(key: AgentKeyRef, params: X402FetchParams, idempotencyKey: string | null): Promise<Outcome<unknown>>;
  sign(key: AgentKeyRef, params: X402SignParams, idempotencyKey: string | null): Promise<Outcome<unknown>>;
}

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
        fetchFor(deps, key, params, idempotencyKey),
      ),
    sign: (key, params, idempotencyKey) =>
      once(idempotencyKey && `sign\n${key.walletId}\n${idempotencyKey}`, () =>
        signFor(deps, key, params, idempotencyKey),
      ),
  };
}

const chainOf = (deps: X402Deps) => ({
  chainId: deps.rail.config.chainId,
  usdcAddress: deps.rail.config.usdcAddress.toLowerCase(),
});

async function fetchFor(
  deps: X402Deps,
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
  const claim = claimOf(key, idempotencyKey, fetchFingerprint(params));
  const stored = claim === null ? null : await storedOutcome(deps, claim);
  if (stored !== null) return resumeFetch(deps, request, stored, claim);
  // A write tool: a frozen wallet asks nothing, paid or free.
  await refuseFrozen(deps, key.walletId);
  const first = await callUpstream(request, {}, { allowPrivate: deps.allowPrivate, failureData: undefined });
  if (first.status !== 402) return success({ ...answerForAgent(first), payment: null });
  const required = paymentRequiredOf(first);
  const chosen = chooseRequirement(required, chainOf(deps));
  refuseAbove(chosen, params.maxAmountMicros);
  await refuseUncovered(deps, chosen.amountMicros);
  const decided = await decideX402(deps, key, {
    chosen,
    resource: resourceOf(request.url),
    resourceJson: required.resource,
    memo: params.memo,
    claim,
  });
  if (decided.replayed) return resumeFetch(deps, request, decided.outcome, claim);
  const outcome = decided.outcome;
  if (!outcome.ok) return outcome;
  const txId = txIdOf(outcome)!;
  if ((outcome.data as { status: string }).status === 'pending') {
    const pending = success({ ...answerForAgent(first), payment: await paymentNow(deps, txId) });
    await storeFinal(deps, claim, pending);
    return pending;
  }
  return payAndStore(deps, request, txId, claim);
}

function refuseAbove(chosen: ChosenRequirement, maxAmountMicros: bigint): void {
  if (chosen.amountMicros <= maxAmountMicros) return;
  throw new AppError(
    'X402_PRICE_TOO_HIGH',
    `the resource asks ${formatMicros(chosen.amountMicros)} USDC, above maxAmount ${formatMicros(maxAmountMicros)}; nothing was signed`,
  );
}

/**
 * The treasury signs every authorization: one it cannot cover would fail at the seller and come back only after
 * validBefore, so it is refused (503) before anything is decided or debited — on a fresh reading, never on one
 * taken before a sweep landed. Gas is the facilitator's.
 */
async function refuseUncovered(deps: X402Deps, amountMicros: bigint): Promise<void> {
  const refusal = await deps.rail.treasury.refusal(amountMicros, 0n, 'payment');
  if (refusal !== null) throw new AppError('SERVICE_UNAVAILABLE', refusal);
}

/** Signs, asks the resource again with the payment, and stores the answer as the key's final outcome. */
async function payAndStore(
  deps: X402Deps,
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
      { allowPrivate: deps.allowPrivate, failureData: { payment: await paymentNow(deps, txId) } },
    );
    const settlement = settlementOf(answer);
    if (settlement?.success === true && /^0x[0-9a-fA-F]{64}$/.test(settlement.transaction))
      await confirmX402(deps, row, settlement.transaction.toLowerCase());
    const payment = await paymentNow(deps, txId);
    outcome =
      answer.status === 402
        ? failure('X402_UPSTREAM_ERROR', paidTwiceMessage(request.url), { data: { payment } })
        : success({ ...answerForAgent(answer), payment });
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'X402_UPSTREAM_ERROR') throw error;
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
  request: UpstreamRequest,
  stored: Outcome<unknown>,
  claim: Claim | null,
): Promise<Outcome<unknown>> {
  const txId = txIdOf(stored);
  const row = txId === null ? undefined : await findX402Row(deps, txId);
  if (txId === null || row === undefined) return stored;
  if (row.state === 'approved' && (await claimApproved(deps, row)))
    return payAndStore(deps, request, txId, claim);
  const payment = await paymentNow(deps, txId);
  if (isFinalFetch(stored)) return withPayment(stored, payment);
  const validMs = Number(row.valid_before_s ?? 0n) * 1000 - deps.ctx.clock.nowMs();
  if (row.state === 'signed' && validMs > RESEND_MARGIN_MS) return payAndStore(deps, request, txId, claim);
  return failure(
    'X402_UPSTREAM_ERROR',
    'an earlier attempt with this key ended before the resource answered',
    {
      data: { payment },
    },
  );
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

function claimOf(key: AgentKeyRef, idempotencyKey: string | null, fingerprint: string): Claim | null {
  return idempotencyKey === null
    ? null
    : { scope: `wallet:${key.walletId}`, key: idempotencyKey, fingerprint };
}

function fetchFingerprint(params: X402FetchParams): string {
  const headers = Object.entries(params.headers)
    .map(([name, value]) => [name.toLowerCase(), value])
    .sort();
  return requestFingerprint({
    tool: 'x402_fetch',
    url: params.url,
    method: params.method,
    headers: JSON.stringify(headers),
    body: params.body,
    maxAmountMicros: params.maxAmountMicros.toString(),
    memo: params.memo,
  });
}

// ---- x402_sign -------------------------------------------------------------------------------------------

async function signFor(
  deps: X402Deps,
  key: AgentKeyRef,
  params: X402SignParams,
  idempotencyKey: string | null,
): Promise<Outcome<unknown>> {
  const required = requiredOf(params.paymentRequirements);
  const chosen = chooseRequirement(required, chainOf(deps));
  const claim = claimOf(key, idempotencyKey, signFingerprint(params));
  const stored = claim === null ? null : await storedOutcome(deps, claim);
  if (stored !== null) return signedAnswer(deps, stored);
  await refuseFrozen(deps, key.walletId);
  await refuseUncovered(deps, chosen.amountMicros);
  const decided = await decideX402(deps, key, {
    chosen,
    resource: params.resource ?? resourceNamed(required, chosen),
    resourceJson: required.resource,
    memo: params.memo,
    claim,
  });
  return signedAnswer(deps, decided.outcome);
}

/** The header for a decided payment: signed (again: the same one) when paid or approved, else its status. */
async function signedAnswer(deps: X402Deps, decision: Outcome<unknown>): Promise<Outcome<unknown>> {
  const txId = txIdOf(decision);
  const row = txId === null ? undefined : await findX402Row(deps, txId);
  if (!decision.ok || txId === null || row === undefined) return decision;
  if (row.state === 'approved') await claimApproved(deps, row);
  const current = await x402Row(deps, txId);
  const payment = await paymentNow(deps, txId);
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
function resourceNamed(required: PaymentRequiredInfo, chosen: ChosenRequirement): string {
  const candidates = [(required.resource as { url?: unknown } | undefined)?.url, chosen.requirement.resource];
  for (const candidate of candidates) {
    if (typeof candidate !== 'string') continue;
    try {
      return resourceOf(new URL(candidate));
    } catch {}
  }
  return 'x402 resource (not named)';
}

function signFingerprint(params: X402SignParams): string {
  return requestFingerprint({
    tool: 'x402_sign',
    paymentRequirements: JSON.stringify(params.paymentRequirements),
    resource: params.resource,
    memo: params.memo,
  });
}

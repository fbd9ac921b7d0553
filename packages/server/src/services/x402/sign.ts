// The store and signing steps x402_fetch and x402_sign share: the payment decided by the ledger writer exactly
// like send_payment (payment-batch.ts, kind 'x402'), an approved payment claimed for signing once, the
// authorization signed by the treasury from what the database holds (deterministic: the same row always gives
// the same signature, so a retry or a resumed crash re-sends the very authorization, never a second one), and
// the stored idempotent outcome read back and replaced by the final answer.
import type { Kysely } from 'kysely';
import { getAddress } from 'viem';
import type { EvmRail } from '../../chain/rail.ts';
import { USDC_DOMAIN_VERSION } from '../../chain/token.ts';
import { toChecksumAddress } from '../../domain/address.ts';
import { type OwnersWait, signedStateOf } from '../../domain/money/batch-state.ts';
import { idempotencyConflict, keyIsLive } from '../../domain/money/idempotency.ts';
import type { PaymentCommand } from '../../domain/money/payment-batch.ts';
import { formatMicros } from '../../domain/money.ts';
import type { Outcome } from '../../domain/outcome.ts';
import { AppError } from '../../errors.ts';
import type { Credential, Offer, StoredOffer } from '../../payments/method.ts';
import { methodOf } from '../../payments/registry.ts';
import type { Database, X402PaymentsTable } from '../../store/schema.ts';
import type { ServiceContext } from '../context.ts';
import type { IdempotentResult } from '../money/idempotency.ts';
import type { AgentKeyRef, PaymentOwners } from '../money/payments.ts';

export interface X402Deps {
  ctx: ServiceContext;
  rail: EvmRail;
  /** X402_ALLOW_PRIVATE: x402_fetch may reach private addresses and http:// (tests, private networks). */
  allowPrivate: boolean;
  /** Bounded mode: payments the float and the allowance cannot cover wait for the owners; null in hot mode. */
  owners: PaymentOwners | null;
}

export interface Claim {
  scope: string;
  key: string;
  fingerprint: string;
}

export interface PaymentView {
  txId: string;
  status: string;
  protocol: string;
  scheme: string;
  amount: string;
  /** What the authorization allows at most: the amount itself for `exact` and `charge`. */
  authorizedAmount: string;
  payTo: string;
  txHash: string | null;
}

export type X402Row = X402PaymentsTable;

/** The ledger writer decides the payment (policies, caps, balance, approval) and, if paid, debits it. */
export async function decideX402(
  deps: X402Deps,
  key: AgentKeyRef,
  payment: {
    offer: Offer;
    resource: string;
    memo: string | null;
    claim: Claim | null;
    /** Bounded mode: the owners' top-up of the float this payment waits for, if it is allowed. */
    owners?: OwnersWait | undefined;
  },
): Promise<IdempotentResult<unknown>> {
  const nowMs = deps.ctx.clock.nowMs();
  const { offer } = payment;
  const method = methodOf(offer.method);
  const terms = method.terms(offer, nowMs);
  const command: PaymentCommand = {
    ...(payment.owners === undefined ? {} : { owners: payment.owners }),
    kind: 'x402',
    keyId: key.id,
    walletId: key.walletId,
    toAddress: offer.payTo,
    amountMicros: offer.amountMicros,
    memo: payment.memo,
    reason: null,
    idempotency: payment.claim,
    nowMs,
    x402: {
      resource: payment.resource,
      method: offer.method,
      version: offer.version,
      requirementJson: offer.termsJson,
      resourceJson: offer.resourceJson,
      extensionsJson: offer.extensionsJson,
      nonce: terms.nonce,
      validBeforeS: terms.validBeforeS,
      authorization: method.authorization,
    },
  };
  return deps.ctx.writer.submit(command, {
    wallets: [key.walletId],
    addresses: [],
  });
}

/** The offer a stored payment pays, as its method reads it again. */
export const storedOfferOf = (row: X402Row): StoredOffer => ({
  termsJson: row.requirement_json,
  resourceJson: row.resource_json,
  extensionsJson: row.extensions_json,
  version: Number(row.x402_version),
});

/**
 * An approved payment becomes signed once (a fresh nonce and validity); false if someone else claimed it. On a
 * frozen wallet it stays approved: WALLET_FROZEN. (A freeze that commits between this claim and the signature is
 * caught by signRow: nothing is signed, and the claimed payment goes back to the wallet after its validity.)
 */
export async function claimApproved(deps: X402Deps, row: X402Row): Promise<boolean> {
  const nowMs = deps.ctx.clock.nowMs();
  const terms = methodOf(row.method).terms(storedOfferOf(row), nowMs);
  const claim = await deps.ctx.writer.run(
    async (trx) => {
      if (await isFrozen(trx, row.wallet_id)) return 'frozen';
      // An MPP nonce is its challenge's hash: if another payment already holds it, that one pays the challenge.
      const holder = await trx
        .selectFrom('x402_payments')
        .select('transaction_id')
        .where('nonce', '=', terms.nonce)
        .where('transaction_id', '!=', row.transaction_id)
        .executeTakeFirst();
      if (holder !== undefined) return 'taken';
      const updated = await trx
        .updateTable('x402_payments')
        .set({
          state: signedStateOf(row.authorization),
          nonce: terms.nonce,
          valid_before_s: terms.validBeforeS,
          updated_at_ms: BigInt(nowMs),
        })
        .where('transaction_id', '=', row.transaction_id)
        .where('state', '=', 'approved')
        .executeTakeFirst();
      return updated.numUpdatedRows === 1n ? 'claimed' : 'taken';
    },
    { wallets: [row.wallet_id] },
  );
  if (claim === 'frozen') throw walletFrozen();
  return claim === 'claimed';
}

/**
 * Nothing is signed for a frozen wallet — not a fresh payment, not an approved one, not a retry of one signed
 * before the freeze. The owner's approval stands: the payment stays approved (debited) until the wallet is
 * unfrozen, and goes back to the wallet if nobody fetches it within APPROVED_UNUSED_MS of the approval.
 */
export async function refuseFrozen(deps: X402Deps, walletId: string): Promise<void> {
  if (await isFrozen(deps.ctx.store.db, walletId)) throw walletFrozen();
}

async function isFrozen(db: Kysely<Database>, walletId: string): Promise<boolean> {
  const wallet = await db
    .selectFrom('wallets')
    .select('frozen_at_ms')
    .where('id', '=', walletId)
    .executeTakeFirst();
  return wallet !== undefined && wallet.frozen_at_ms !== null;
}

const walletFrozen = () =>
  new AppError(
    'WALLET_FROZEN',
    'this agent wallet is frozen by its owner; nothing is signed (an approved payment waits until it is unfrozen)',
  );

/** The x402 row of a payment; undefined for a denied one (a rejected record has nothing to sign). */
export function findX402Row(deps: X402Deps, transactionId: string): Promise<X402Row | undefined> {
  return deps.ctx.store.db
    .selectFrom('x402_payments')
    .selectAll()
    .where('transaction_id', '=', transactionId)
    .executeTakeFirst();
}

export async function x402Row(deps: X402Deps, transactionId: string): Promise<X402Row> {
  const row = await findX402Row(deps, transactionId);
  if (row === undefined) throw new Error(`no x402 payment is recorded for transaction ${transactionId}`);
  return row;
}

export interface SignedPayment extends Credential {
  validBefore: number;
}

/**
 * The treasury's authorization for a signed row — the EIP-712 message its payment method signs (EIP-3009 in the
 * token's own domain, or a Permit2 witness transfer) — as the credential of that method. Deterministic: the same
 * row gives the same signature, so a resumed payment re-sends the very authorization.
 */
export async function signRow(deps: X402Deps, row: X402Row): Promise<SignedPayment> {
  if (row.nonce === null || row.valid_before_s === null)
    throw new Error(`x402 payment ${row.transaction_id} has no authorization to sign`);
  await refuseFrozen(deps, row.wallet_id);
  const { config, keys } = deps.rail;
  const fields = {
    from: keys.treasury.address,
    to: getAddress(row.pay_to),
    value: row.amount_micros,
    validAfter: 0n,
    validBefore: row.valid_before_s,
    nonce: row.nonce,
  };
  const method = methodOf(row.method);
  const token = {
    chainId: config.chainId,
    usdcAddress: config.usdcAddress,
    name: await deps.rail.tokenName(),
    version: USDC_DOMAIN_VERSION,
  };
  const signature = await keys.treasury.signTypedData(
    method.typedData(storedOfferOf(row), fields, token) as Parameters<typeof keys.treasury.signTypedData>[0],
  );
  const credential = method.credential(storedOfferOf(row), { ...fields, signature });
  return { ...credential, validBefore: Number(row.valid_before_s) };
}

/** The payment that holds an authorization nonce (an MPP challenge's hash), if any. */
export function paymentOfNonce(deps: X402Deps, nonce: string): Promise<X402Row | undefined> {
  return deps.ctx.store.db
    .selectFrom('x402_payments')
    .selectAll()
    .where('nonce', '=', nonce)
    .executeTakeFirst();
}

/** Keeps what the seller's answer said of the payment (its receipt), shown in history. */
export async function keepReceipt(deps: X402Deps, transactionId: string, receipt: string): Promise<void> {
  await deps.ctx.writer.run(async (trx) => {
    await trx
      .updateTable('transactions')
      .set({ receipt: receipt.slice(0, RECEIPT_CHARS_MAX) })
      .where('id', '=', transactionId)
      .execute();
  });
}

/** A receipt is the seller's text: kept up to this length. */
const RECEIPT_CHARS_MAX = 4_096;

/** The payment as the agent sees it now (its status moves on: settled, expired, approved, rejected). */
export async function paymentNow(deps: X402Deps, transactionId: string): Promise<PaymentView> {
  const tx = await deps.ctx.store.db
    .selectFrom('transactions')
    .innerJoin('x402_payments', 'x402_payments.transaction_id', 'transactions.id')
    .select([
      'transactions.id',
      'transactions.status',
      'transactions.amount_micros',
      'transactions.to_address',
      'transactions.tx_hash',
      'x402_payments.method',
      'x402_payments.amount_micros as authorized_micros',
    ])
    .where('transactions.id', '=', transactionId)
    .executeTakeFirstOrThrow();
  const method = methodOf(tx.method);
  return {
    txId: tx.id,
    status: tx.status,
    protocol: method.protocol,
    scheme: method.scheme,
    amount: formatMicros(tx.amount_micros),
    authorizedAmount: formatMicros(tx.authorized_micros),
    payTo: toChecksumAddress(tx.to_address ?? ''),
    txHash: tx.tx_hash,
  };
}

/** The outcome stored under an idempotency key, null when there is none in the window; 409 on other params. */
export async function storedOutcome(deps: X402Deps, claim: Claim): Promise<Outcome<unknown> | null> {
  const row = await deps.ctx.store.db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'response_body', 'created_at_ms'])
    .where('scope', '=', claim.scope)
    .where('key', '=', claim.key)
    .executeTakeFirst();
  if (row === undefined || row.response_body === null) return null;
  if (!keyIsLive(Number(row.created_at_ms), deps.ctx.clock.nowMs())) return null;
  if (row.request_hash !== claim.fingerprint) throw idempotencyConflict();
  return JSON.parse(row.response_body) as Outcome<unknown>;
}

/** Replaces the stored outcome by the final answer, so a retry replays it instead of fetching again. */
export async function storeFinal(
  deps: X402Deps,
  claim: Claim | null,
  outcome: Outcome<unknown>,
): Promise<void> {
  if (claim === null) return;
  await deps.ctx.writer.run(async (trx) => {
    await trx
      .updateTable('idempotency_keys')
      .set({ response_status: outcome.ok ? 1n : 0n, response_body: JSON.stringify(outcome) })
      .where('scope', '=', claim.scope)
      .where('key', '=', claim.key)
      .where('request_hash', '=', claim.fingerprint)
      .execute();
  });
}

/** The transaction an outcome names (a decision's txId, a final answer's payment, a denial's data). */
export function txIdOf(outcome: Outcome<unknown>): string | null {
  const data = (outcome.data ?? {}) as { txId?: unknown; payment?: { txId?: unknown } | null };
  const id = data.payment?.txId ?? data.txId;
  return typeof id === 'string' ? id : null;
}

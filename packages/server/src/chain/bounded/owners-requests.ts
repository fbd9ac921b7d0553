// Operations of the owners' account that wait for their signatures (contract section 14): created with the
// `signRequest` each owner signs (chain/owners-ops.ts), handed signatures one at a time, and — once the threshold
// is met — queued in the outbox as the service's handleOps transaction (it pays the gas), in the same database
// transaction that marks the request submitted: two instances handing in the last signatures at once submit it
// once (the update is a compare-and-set on the signatures already stored). Only the owners' keys can make the
// account act: a signature from anyone else, or over another request, is refused here and would be refused by the
// account on chain anyway. A hybrid account (TREASURY_ACCOUNT_KIND=hybrid) takes one signature: its owner's, or a
// passkey's WebAuthn assertion encoded for its P-256 verifier (passkey-signature.ts), stored under
// `passkey:<credential id>` in place of an address.
import type { Hex } from 'viem';
import { isoFromMs } from '../../clock.ts';
import { toChecksumAddress } from '../../domain/address.ts';
import { newId } from '../../domain/ids.ts';
import { formatMicros } from '../../domain/money.ts';
import type { SignatureRequestStatus, TreasurySignatureRequestsTable } from '../../store/schema.ts';
import type { RailContext } from '../books.ts';
import type { ChainClient } from '../client.ts';
import type { EvmConfig } from '../config.ts';
import type { ServiceKeys } from '../keys.ts';
import { boundedAccount, OWNERS_SIGNATURES_MAX_AGE_MS } from './bounded.ts';
import type { Address, P256Key, SignedDelegation } from './delegation.ts';
import {
  type AccountOwners,
  currentOwners,
  type OwnersReadDeps,
  ownersChangeOf,
  updateOwnersCallData,
} from './owners-chain.ts';
import {
  callGasFor,
  handleOpsCall,
  ownersOperation,
  type PackedOperation,
  revokeCallData,
  signingOwner,
  signRequestOf,
  transferCallData,
} from './owners-ops.ts';
import {
  type Assertion,
  accountAccepts,
  accountHoldsKey,
  encodeWebAuthnSignature,
} from './passkey-signature.ts';

export interface OwnersDeps {
  ctx: RailContext;
  client: ChainClient;
  config: EvmConfig;
  keys: Pick<ServiceKeys, 'treasury'>;
}

export type OwnersWhat =
  | {
      kind: 'transfer';
      toAddress: Address;
      amountMicros: bigint;
      /** A withdrawal's payout waiting in the outbox (awaiting_signatures): its transaction and row. */
      payout?: { transactionId: string; outboxId: string };
    }
  | { kind: 'revoke'; delegation: SignedDelegation }
  /** New owners (lower-case, sorted) and threshold: the account's updateMultiSigParameters. */
  | { kind: 'owners'; change: AccountOwners };

export class SignatureRefused extends Error {}

type Signature = { signer: Address; signature: Hex };

const operationToJson = (op: PackedOperation) =>
  JSON.stringify(op, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
const operationFromJson = (json: string): PackedOperation => {
  const raw = JSON.parse(json) as Record<string, string>;
  return {
    ...(raw as unknown as PackedOperation),
    nonce: BigInt(raw.nonce!),
    preVerificationGas: BigInt(raw.preVerificationGas!),
  };
};

/** A new request: its operation built against the EntryPoint's nonce for the request's own key. */
export async function createOwnersRequest(deps: OwnersDeps, what: OwnersWhat) {
  const row = await prepareOwnersRequest(deps, what);
  await deps.ctx.writer.run((trx) => trx.insertInto('treasury_signature_requests').values(row).execute());
  return requestView(row, deps.config);
}

/**
 * A request's row, not yet stored: an agent's payment that waits for the owners stores it with its pending
 * record, in the ledger writer's batch (services/money/commands/payment.ts), which names its payment.
 */
export async function prepareOwnersRequest(
  deps: OwnersDeps,
  what: OwnersWhat,
): Promise<TreasurySignatureRequestsTable> {
  const bounded = deps.config.bounded!;
  const account = boundedAccount(bounded, deps.keys);
  const id = newId('osr');
  const entryPoint = bounded.framework.entryPoint;
  const callGas = callGasFor(what.kind === 'owners' ? what.change.owners.length : 0);
  const operation = await ownersOperation(
    deps.client,
    entryPoint,
    account,
    id,
    callDataOf(deps, what),
    callGas,
  );
  // The threshold the account has now (a change of owners applies to later requests, not to itself).
  const { threshold } = await currentOwners(readDeps(deps));
  const { digest } = signRequestOf(operation, entryPoint, deps.config.chainId, bounded.accountKind);
  const nowMs = BigInt(deps.ctx.clock.nowMs());
  return {
    id,
    chain_id: BigInt(deps.config.chainId),
    account,
    kind: what.kind,
    transaction_id: what.kind === 'transfer' ? (what.payout?.transactionId ?? null) : null,
    to_address: what.kind === 'transfer' ? what.toAddress.toLowerCase() : null,
    amount_micros: what.kind === 'transfer' ? what.amountMicros : null,
    operation_json: operationToJson(operation),
    digest,
    signatures_json: '[]',
    signatures_needed: BigInt(threshold),
    status: 'awaiting_signatures',
    outbox_id: what.kind === 'transfer' ? (what.payout?.outboxId ?? null) : null,
    created_at_ms: nowMs,
    updated_at_ms: nowMs,
  };
}

/** The account's call a request makes. */
export function callDataOf(deps: Pick<OwnersDeps, 'config'>, what: OwnersWhat): Hex {
  if (what.kind === 'transfer')
    return transferCallData(deps.config.usdcAddress as Address, what.toAddress, what.amountMicros);
  if (what.kind === 'revoke') return revokeCallData(what.delegation);
  return updateOwnersCallData(what.change);
}

const readDeps = (deps: OwnersDeps): OwnersReadDeps => ({
  db: deps.ctx.store.db,
  client: deps.client,
  config: deps.config,
  keys: deps.keys,
});

/** The request as the owners see it: what it does, the signRequest, how many signatures it still needs. */
export function requestView(row: TreasurySignatureRequestsTable, config: EvmConfig) {
  const operation = operationFromJson(row.operation_json);
  const { typedData, digest } = signRequestOf(
    operation,
    config.bounded!.framework.entryPoint,
    config.chainId,
    config.bounded!.accountKind,
  );
  const signatures = JSON.parse(row.signatures_json) as Signature[];
  return {
    id: row.transaction_id ?? row.id,
    requestId: row.id,
    kind: row.kind,
    status: row.status,
    toAddress: row.to_address === null ? null : toChecksumAddress(row.to_address),
    amount: row.amount_micros === null ? null : formatMicros(row.amount_micros),
    change: row.kind === 'owners' ? changeView(operation.callData) : null,
    signRequest: { typedData: jsonSafe(typedData), digest },
    signaturesNeeded: Math.max(0, Number(row.signatures_needed) - signatures.length),
    signedBy: signatures.map((s) =>
      s.signer.startsWith(PASSKEY_SIGNER) ? s.signer : toChecksumAddress(s.signer),
    ),
    createdAt: isoFromMs(row.created_at_ms),
  };
}

/** What a change of owners makes the account hold, read from the very call the owners sign (EIP-55). */
function changeView(callData: Hex): { owners: string[]; threshold: number } {
  const { owners, threshold } = ownersChangeOf(callData);
  return { owners: owners.map(toChecksumAddress), threshold };
}

function jsonSafe<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
}

/**
 * Hands in one owner's signature. Refused (SignatureRefused) when it is not an owner's over this very request,
 * or that owner signed already; at the threshold the request is queued for submission, once.
 */
export function addOwnerSignature(deps: OwnersDeps, id: string, signature: Hex) {
  return addSignature(deps, id, async (row) => ({
    signer: await checkedSigner(deps, row, signature),
    signature,
  }));
}

/**
 * Hands in a passkey's assertion for a hybrid account's request (its WebAuthn verification against the enrolled
 * credential is the caller's: services/rail/treasury-passkey.ts). Refused unless the account holds this passkey's
 * key and — asked on chain before anything is stored — accepts the encoded signature over this request's digest.
 */
export function addPasskeySignature(deps: OwnersDeps, id: string, assertion: Assertion, key: P256Key) {
  return addSignature(deps, id, async (row) => {
    if (deps.config.bounded!.accountKind !== 'hybrid')
      throw new SignatureRefused('a passkey signs only for a hybrid account (TREASURY_ACCOUNT_KIND=hybrid)');
    if (!(await accountHoldsKey(deps.client, row.account as Address, key)))
      throw new SignatureRefused("this passkey is not one of the account's keys");
    const signature = encodeWebAuthnSignature(assertion);
    const digest = requestDigest(row, deps.config);
    if (!(await accountAccepts(deps.client, row.account as Address, digest, signature)))
      throw new SignatureRefused("the account does not accept this passkey's signature over this request");
    // Not an address: the signer's name in signedBy; a hybrid account's one signature is submitted as it is.
    const signer = `${PASSKEY_SIGNER}${key.keyId}` as Address;
    const signatures = JSON.parse(row.signatures_json) as Signature[];
    if (signatures.some((s) => s.signer === signer))
      throw new SignatureRefused('this passkey has signed already');
    return { signer, signature };
  });
}

/** A passkey's signature is stored under this prefix and its credential id (an owner's under their address). */
export const PASSKEY_SIGNER = 'passkey:';

async function addSignature(
  deps: OwnersDeps,
  id: string,
  check: (row: TreasurySignatureRequestsTable) => Promise<Signature>,
) {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const row = await findOwnersRequest(deps, id);
    if (row === undefined) throw new SignatureRefused(`no request ${id} waits for signatures`);
    if (row.status !== 'awaiting_signatures') return requestView(row, deps.config);
    const stored = await storeSignature(deps, row, await check(row));
    if (stored !== null) return requestView(stored, deps.config);
    // Another signature landed between the read and the write: read again.
  }
  throw new SignatureRefused('the request changed while this signature was stored; hand it in again');
}

/** The hash the account validates for this request, recomputed from its operation (not read from the row). */
export function requestDigest(row: TreasurySignatureRequestsTable, config: EvmConfig): Hex {
  const bounded = config.bounded!;
  return signRequestOf(
    operationFromJson(row.operation_json),
    bounded.framework.entryPoint,
    config.chainId,
    bounded.accountKind,
  ).digest;
}

async function checkedSigner(deps: OwnersDeps, row: TreasurySignatureRequestsTable, signature: Hex) {
  const bounded = deps.config.bounded!;
  const request = signRequestOf(
    operationFromJson(row.operation_json),
    bounded.framework.entryPoint,
    deps.config.chainId,
    bounded.accountKind,
  );
  // The owners the account has now: after a change of owners, those removed no longer count, those added do.
  const { owners } = await currentOwners(readDeps(deps));
  // Not among the owners kept: read the account again before refusing (they may have changed it elsewhere).
  const signer =
    (await signingOwner(request, signature, owners)) ??
    (await signingOwner(request, signature, (await currentOwners(readDeps(deps), true)).owners));
  if (signer === null)
    throw new SignatureRefused("this is not an owner's signature over this request's signRequest");
  const signatures = JSON.parse(row.signatures_json) as Signature[];
  if (signatures.some((s) => s.signer === signer)) throw new SignatureRefused(`${signer} has signed already`);
  return signer;
}

/** Compare-and-set of the signatures; at the threshold, the outbox row too. null: the row changed meanwhile. */
async function storeSignature(
  deps: OwnersDeps,
  row: TreasurySignatureRequestsTable,
  added: Signature,
): Promise<TreasurySignatureRequestsTable | null> {
  const signatures = [...(JSON.parse(row.signatures_json) as Signature[]), added];
  const complete = BigInt(signatures.length) >= row.signatures_needed;
  const nowMs = BigInt(deps.ctx.clock.nowMs());
  // A withdrawal's request has its outbox row already (waiting); another gets one at the threshold.
  const outboxId = row.outbox_id ?? (complete ? newId('obx') : null);
  const next: TreasurySignatureRequestsTable = {
    ...row,
    signatures_json: JSON.stringify(signatures),
    status: complete ? 'submitted' : 'awaiting_signatures',
    outbox_id: outboxId,
    updated_at_ms: nowMs,
  };
  return deps.ctx.writer.run(async (trx) => {
    const updated = await trx
      .updateTable('treasury_signature_requests')
      .set({
        signatures_json: next.signatures_json,
        status: next.status,
        outbox_id: outboxId,
        updated_at_ms: nowMs,
      })
      .where('id', '=', row.id)
      .where('status', '=', 'awaiting_signatures')
      .where('signatures_json', '=', row.signatures_json)
      .executeTakeFirst();
    if (updated.numUpdatedRows !== 1n) return null;
    if (complete) await queueSubmission(deps, trx, row, signatures, outboxId!, nowMs);
    return next;
  });
}

async function queueSubmission(
  deps: OwnersDeps,
  trx: Parameters<Parameters<RailContext['writer']['run']>[0]>[0],
  row: TreasurySignatureRequestsTable,
  signatures: Signature[],
  outboxId: string,
  nowMs: bigint,
): Promise<void> {
  const entryPoint = deps.config.bounded!.framework.entryPoint;
  const service = deps.keys.treasury.address;
  const call = handleOpsCall(entryPoint, operationFromJson(row.operation_json), signatures, service);
  if (row.outbox_id !== null) {
    // The withdrawal's payout row: from now on sent, confirmed and finished like any payout of its payment.
    const queued = await trx
      .updateTable('chain_outbox')
      .set({
        kind: 'owners_op',
        status: 'queued',
        from_address: row.account,
        authorization_json: JSON.stringify(call),
        updated_at_ms: nowMs,
      })
      .where('id', '=', row.outbox_id)
      .where('status', '=', 'awaiting_signatures')
      .executeTakeFirst();
    if (queued.numUpdatedRows !== 1n)
      throw new Error(`outbox row ${row.outbox_id} no longer awaits signatures`);
    return;
  }
  // An agent's payment held while the owners sign: its wallet is locked when the row ends (outbox-finish.ts), the
  // payment itself is not the row's — its money is in the wallet's hold, not owed as a payout.
  const held =
    row.transaction_id === null
      ? undefined
      : await trx
          .selectFrom('transactions')
          .select('wallet_id')
          .where('id', '=', row.transaction_id)
          .executeTakeFirst();
  await trx
    .insertInto('chain_outbox')
    .values({
      id: outboxId,
      kind: 'owners_op',
      transaction_id: null,
      wallet_id: held?.wallet_id ?? null,
      from_address: row.account,
      to_address: row.to_address ?? row.account,
      amount_micros: row.amount_micros ?? 0n,
      status: 'queued',
      tx_hashes_json: '[]',
      authorization_json: JSON.stringify(call),
      authorization_nonce: null,
      attempts: 0n,
      created_at_ms: nowMs,
      updated_at_ms: nowMs,
    })
    .execute();
}

/**
 * The request for a payment whose payout waits for the owners (created on first ask; a second ask, a replay or a
 * racing instance gets the same one: one request per transaction).
 */
export async function ownersRequestFor(deps: OwnersDeps, transactionId: string) {
  const existing = () =>
    deps.ctx.store.db
      .selectFrom('treasury_signature_requests')
      .selectAll()
      .where('transaction_id', '=', transactionId)
      .executeTakeFirst();
  const found = await existing();
  if (found !== undefined) return requestView(found, deps.config);
  const payout = await deps.ctx.store.db
    .selectFrom('chain_outbox')
    .select(['id', 'to_address', 'amount_micros'])
    .where('transaction_id', '=', transactionId)
    .where('status', '=', 'awaiting_signatures')
    .executeTakeFirst();
  if (payout === undefined) return null;
  try {
    return await createOwnersRequest(deps, {
      kind: 'transfer',
      toAddress: payout.to_address as Address,
      amountMicros: payout.amount_micros,
      payout: { transactionId, outboxId: payout.id },
    });
  } catch (error) {
    const raced = await existing();
    if (raced !== undefined) return requestView(raced, deps.config);
    throw error;
  }
}

/** A request by its id or by the transaction it pays. */
export async function findOwnersRequest(deps: OwnersDeps, id: string) {
  return deps.ctx.store.db
    .selectFrom('treasury_signature_requests')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', id), eb('transaction_id', '=', id)]))
    .executeTakeFirst();
}

export interface OwnersListQuery {
  page: number;
  limit: number;
  status?: SignatureRequestStatus;
  /** Where the previous page ended (its last row's creation and id); page is then ignored. */
  cursor: { atMs: bigint; id: string } | null;
}

/**
 * The requests a tenant's members see, newest first: those paying the tenant's own payments, and the treasury's
 * own (a revocation of the service's allowance, a change of the owners: neither belongs to a payment).
 * `expiresAt` is when a waiting payment fails unsigned (its outbox row's age, as expireUnsignedOnce reads it);
 * null for what does not wait or never expires.
 */
export async function listOwnersRequests(deps: OwnersDeps, tenantId: string, query: OwnersListQuery) {
  const cursor = query.cursor;
  const base = deps.ctx.store.db
    .selectFrom('treasury_signature_requests as r')
    .leftJoin('transactions as t', 't.id', 'r.transaction_id')
    .where((eb) =>
      eb.or([
        eb('t.user_id', '=', tenantId),
        eb.and([eb('r.transaction_id', 'is', null), eb('r.kind', 'in', ['revoke', 'owners'])]),
      ]),
    )
    .$if(query.status !== undefined, (qb) => qb.where('r.status', '=', query.status!));
  const counted = await base
    .select((eb) => eb.fn.countAll<string | number | bigint>().as('n'))
    .executeTakeFirst();
  const rows = await base
    .leftJoin('chain_outbox as o', 'o.id', 'r.outbox_id')
    .selectAll('r')
    .select('o.created_at_ms as outbox_created_at_ms')
    .$if(cursor !== null, (qb) =>
      qb.where((eb) =>
        eb.or([
          eb('r.created_at_ms', '<', cursor!.atMs),
          eb.and([eb('r.created_at_ms', '=', cursor!.atMs), eb('r.id', '<', cursor!.id)]),
        ]),
      ),
    )
    .orderBy('r.created_at_ms', 'desc')
    .orderBy('r.id', 'desc')
    .limit(query.limit)
    .offset(cursor === null ? (query.page - 1) * query.limit : 0)
    .execute();
  const last = rows.at(-1);
  return {
    items: rows.map((row) => listedView(row, deps.config)),
    total: Number(counted?.n ?? 0),
    page: query.page,
    limit: query.limit,
    nextCursor: last === undefined || rows.length < query.limit ? null : `${last.created_at_ms}.${last.id}`,
  };
}

function listedView(
  row: TreasurySignatureRequestsTable & { outbox_created_at_ms: bigint | null },
  config: EvmConfig,
) {
  const { requestId: _requestId, ...view } = requestView(row, config);
  const waitsForPayment = row.status === 'awaiting_signatures' && row.transaction_id !== null;
  const expiresAtMs =
    waitsForPayment && row.outbox_created_at_ms !== null
      ? BigInt(row.outbox_created_at_ms) + BigInt(OWNERS_SIGNATURES_MAX_AGE_MS)
      : null;
  return { ...view, expiresAt: expiresAtMs === null ? null : isoFromMs(expiresAtMs) };
}

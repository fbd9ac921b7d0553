// Operations of the owners' account that wait for their signatures (contract section 14): created with the
// `signRequest` each owner signs (chain/owners-ops.ts), handed signatures one at a time, and — once the threshold
// is met — queued in the outbox as the service's handleOps transaction (it pays the gas), in the same database
// transaction that marks the request submitted: two instances handing in the last signatures at once submit it
// once (the update is a compare-and-set on the signatures already stored). Only the owners' keys can make the
// account act: a signature from anyone else, or over another request, is refused here and would be refused by the
// account on chain anyway.
import type { Hex } from 'viem';
import { isoFromMs } from '../../clock.ts';
import { toChecksumAddress } from '../../domain/address.ts';
import { newId } from '../../domain/ids.ts';
import { formatMicros } from '../../domain/money.ts';
import type { TreasurySignatureRequestsTable } from '../../store/schema.ts';
import type { RailContext } from '../books.ts';
import type { ChainClient } from '../client.ts';
import type { EvmConfig } from '../config.ts';
import type { ServiceKeys } from '../keys.ts';
import { boundedAccount } from './bounded.ts';
import type { Address, SignedDelegation } from './delegation.ts';
import {
  handleOpsCall,
  ownersOperation,
  type PackedOperation,
  revokeCallData,
  signingOwner,
  signRequestOf,
  transferCallData,
} from './owners-ops.ts';

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
  | { kind: 'revoke'; delegation: SignedDelegation };

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
  const row = await newOwnersRow(deps, what);
  await deps.ctx.writer.run((trx) => trx.insertInto('treasury_signature_requests').values(row).execute());
  return requestView(row, deps.config);
}

/** A request's row, not stored yet: its operation and its digest (reads the EntryPoint's nonce). */
export async function newOwnersRow(
  deps: OwnersDeps,
  what: OwnersWhat,
): Promise<TreasurySignatureRequestsTable> {
  const bounded = deps.config.bounded!;
  const account = boundedAccount(bounded, deps.keys);
  const id = newId('osr');
  const callData =
    what.kind === 'transfer'
      ? transferCallData(deps.config.usdcAddress as Address, what.toAddress, what.amountMicros)
      : revokeCallData(what.delegation);
  const entryPoint = bounded.framework.entryPoint;
  const operation = await ownersOperation(deps.client, entryPoint, account, id, callData);
  const { digest } = signRequestOf(operation, entryPoint, deps.config.chainId);
  const nowMs = BigInt(deps.ctx.clock.nowMs());
  const row: TreasurySignatureRequestsTable = {
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
    signatures_needed: BigInt(bounded.threshold),
    status: 'awaiting_signatures',
    outbox_id: what.kind === 'transfer' ? (what.payout?.outboxId ?? null) : null,
    created_at_ms: nowMs,
    updated_at_ms: nowMs,
  };
  return row;
}

/** The request as the owners see it: what it does, the signRequest, how many signatures it still needs. */
export function requestView(row: TreasurySignatureRequestsTable, config: EvmConfig) {
  const operation = operationFromJson(row.operation_json);
  const { typedData, digest } = signRequestOf(
    operation,
    config.bounded!.framework.entryPoint,
    config.chainId,
  );
  const signatures = JSON.parse(row.signatures_json) as Signature[];
  return {
    id: row.transaction_id ?? row.id,
    requestId: row.id,
    kind: row.kind,
    status: row.status,
    toAddress: row.to_address === null ? null : toChecksumAddress(row.to_address),
    amount: row.amount_micros === null ? null : formatMicros(row.amount_micros),
    signRequest: { typedData: jsonSafe(typedData), digest },
    signaturesNeeded: Math.max(0, Number(row.signatures_needed) - signatures.length),
    signedBy: signatures.map((s) => toChecksumAddress(s.signer)),
    createdAt: isoFromMs(row.created_at_ms),
  };
}

function jsonSafe<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
}

/**
 * Hands in one owner's signature. Refused (SignatureRefused) when it is not an owner's over this very request,
 * or that owner signed already; at the threshold the request is queued for submission, once.
 */
export async function addOwnerSignature(deps: OwnersDeps, id: string, signature: Hex) {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const row = await findOwnersRequest(deps, id);
    if (row === undefined) throw new SignatureRefused(`no request ${id} waits for signatures`);
    if (row.status !== 'awaiting_signatures') return requestView(row, deps.config);
    const signer = await checkedSigner(deps, row, signature);
    const stored = await storeSignature(deps, row, { signer, signature });
    if (stored !== null) return requestView(stored, deps.config);
    // Another signature landed between the read and the write: read again.
  }
  throw new SignatureRefused('the request changed while this signature was stored; hand it in again');
}

async function checkedSigner(deps: OwnersDeps, row: TreasurySignatureRequestsTable, signature: Hex) {
  const bounded = deps.config.bounded!;
  const request = signRequestOf(
    operationFromJson(row.operation_json),
    bounded.framework.entryPoint,
    deps.config.chainId,
  );
  const signer = await signingOwner(request, signature, bounded.owners);
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
  await trx
    .insertInto('chain_outbox')
    .values({
      id: outboxId,
      kind: 'owners_op',
      transaction_id: null,
      wallet_id: null,
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

// The owners revoke the service's delegation (contract section 14, "revoke the service's allowance"): an operation
// of their account (its disableDelegation) that waits for their signatures like any other owners' request. Asking
// twice while one waits gives the same request — also when two instances are asked at once: the insert re-checks
// under the delegation row's lock — so the owners never sign two revocations of one delegation. Once it is signed
// at their threshold and mined, the DelegationManager refuses every redemption: the chain, not this code, stops
// the refills.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Database, TreasurySignatureRequestsTable } from '../../store/schema.ts';
import { activeDelegation, shapeOf } from './bounded.ts';
import { readAllowance } from './delegation.ts';
import { revokeCallData } from './owners-ops.ts';
import { type OwnersDeps, prepareOwnersRequest, requestView } from './owners-requests.ts';

/** Nothing to revoke: no delegation of the service is stored, or the owners revoked it already. */
export class NothingToRevoke extends Error {}

/**
 * The owners' request that revokes the service's delegation: the one waiting (awaiting signatures, or signed and
 * on its way), else a new one. NothingToRevoke when no delegation is active.
 */
export async function revokeRequest(deps: OwnersDeps) {
  const db = deps.ctx.store.db;
  const shape = shapeOf(deps.config, deps.keys);
  const stored = await activeDelegation(db, deps.client, deps.config, shape);
  if (stored === null)
    throw new NothingToRevoke('no delegation to the service is active: there is nothing to revoke');
  const callData = revokeCallData(stored.delegation);
  const waiting = await waitingCall(db, 'revoke', shape.account, callData);
  if (waiting !== undefined) return requestView(waiting, deps.config);
  // Only `revoked` is read here (the chain's time matters to the period, not to whether it was disabled).
  const state = await readAllowance(deps.client, deps.config.bounded!.framework, stored.delegation, 0n);
  if (state.revoked) throw new NothingToRevoke('the owners have revoked the service’s delegation already');
  const row = await prepareOwnersRequest(deps, { kind: 'revoke', delegation: stored.delegation });
  const kept = await deps.ctx.writer.run(async (trx) => {
    // Two instances asked at once: the second waits here and finds the first one's request.
    await sql`update treasury_delegations set created_at_ms = created_at_ms where id = ${stored.id}`.execute(
      trx,
    );
    const raced = await waitingCall(trx, 'revoke', shape.account, callData);
    if (raced !== undefined) return raced;
    await trx.insertInto('treasury_signature_requests').values(row).execute();
    return row;
  });
  return requestView(kept, deps.config);
}

/** A request of this kind making this very call that is waiting for signatures or on its way to the chain. */
export async function waitingCall(
  db: Kysely<Database>,
  kind: 'revoke' | 'owners',
  account: string,
  callData: string,
): Promise<TreasurySignatureRequestsTable | undefined> {
  const rows = await db
    .selectFrom('treasury_signature_requests')
    .selectAll()
    .where('kind', '=', kind)
    .where('account', '=', account)
    .where('status', 'in', ['awaiting_signatures', 'submitted'])
    .orderBy('created_at_ms', 'asc')
    .orderBy('id', 'asc')
    .execute();
  return rows.find((row) => sameCall(row.operation_json, callData));
}

/** Pure: whether a stored operation makes this very call. */
function sameCall(operationJson: string, callData: string): boolean {
  const stored = (JSON.parse(operationJson) as { callData?: string }).callData;
  return stored !== undefined && stored.toLowerCase() === callData.toLowerCase();
}

// The owners change their owners or their threshold (contract section 14: "changing owners, threshold or
// allowance is a transaction the owners sign"): an operation of their account — its own updateMultiSigParameters,
// replacing every owner and the threshold at once — signed by the owners the account has NOW, at its threshold
// now, and submitted by the service like any owners' request. The service's key cannot make the change, only ask
// for it. Asking twice for the same change while one waits gives the same request, also when two instances are
// asked at once (the insert re-checks under a lock). Once it completes, the chain's owners are the ones whose
// signatures count (owners-chain.ts).
import { sql } from 'kysely';
import { boundedAccount } from './bounded.ts';
import type { Address } from './delegation.ts';
import { type AccountOwners, currentOwners, normalOwners, sameOwners } from './owners-chain.ts';
import { callDataOf, type OwnersDeps, prepareOwnersRequest, requestView } from './owners-requests.ts';
import { waitingCall } from './owners-revoke.ts';

/** The change asked for cannot be made (a hybrid account, duplicates, a threshold out of range…): 400. */
export class OwnersChangeRefused extends Error {}
/** The account has these owners and this threshold already: 409. */
export class NothingToChange extends Error {}

/** The framework's MultiSigDeleGator takes at most this many owners (MAX_NUMBER_OF_SIGNERS is 30): ours is 16. */
export const OWNERS_MAX = 16;
const ZERO = `0x${'0'.repeat(40)}`;
/** A row of service_settings locked while a change is looked for and stored: two instances store one. */
const CHANGE_LOCK = 'treasury_owners_change_lock';

/**
 * The owners' request that changes the account's owners and threshold: the one waiting for this same change,
 * else a new one. OwnersChangeRefused for what cannot be asked, NothingToChange for what is so already.
 */
export async function ownersChangeRequest(deps: OwnersDeps, asked: { owners: string[]; threshold: number }) {
  const bounded = deps.config.bounded!;
  if (bounded.accountKind !== 'multisig')
    throw new OwnersChangeRefused(
      'a hybrid account (TREASURY_ACCOUNT_KIND=hybrid) has one owner and its passkeys: its owners are not changed here',
    );
  const account = boundedAccount(bounded, deps.keys);
  const change = checkOwnersChange(asked, account);
  const db = deps.ctx.store.db;
  const now = await currentOwners({ db, client: deps.client, config: deps.config, keys: deps.keys });
  if (sameOwners(now, change))
    throw new NothingToChange('the account has these owners and this threshold already');
  const callData = callDataOf(deps, { kind: 'owners', change });
  const waiting = await waitingCall(db, 'owners', account, callData);
  if (waiting !== undefined) return requestView(waiting, deps.config);
  const row = await prepareOwnersRequest(deps, { kind: 'owners', change });
  await db
    .insertInto('service_settings')
    .values({ key: CHANGE_LOCK, value: '0' })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const kept = await deps.ctx.writer.run(async (trx) => {
    // Two instances asked at once: the second waits here and finds the first one's request.
    await sql`update service_settings set value = value where key = ${CHANGE_LOCK}`.execute(trx);
    const raced = await waitingCall(trx, 'owners', account, callData);
    if (raced !== undefined) return raced;
    await trx.insertInto('treasury_signature_requests').values(row).execute();
    return row;
  });
  return requestView(kept, deps.config);
}

/** Pure: the change as the account will take it (lower-case, sorted owners), or why it cannot be made. */
export function checkOwnersChange(
  asked: { owners: string[]; threshold: number },
  account: string,
): AccountOwners {
  const owners = normalOwners(asked.owners);
  if (owners.length === 0) throw new OwnersChangeRefused('owners: name at least one owner');
  if (owners.length > OWNERS_MAX) throw new OwnersChangeRefused(`owners: at most ${OWNERS_MAX} owners`);
  if (new Set(owners).size !== owners.length)
    throw new OwnersChangeRefused('owners: an address is named twice');
  if (owners.includes(ZERO as Address)) throw new OwnersChangeRefused('owners: the zero address cannot sign');
  if (owners.includes(account.toLowerCase() as Address))
    throw new OwnersChangeRefused('owners: the account cannot be its own owner');
  if (!Number.isSafeInteger(asked.threshold) || asked.threshold < 1 || asked.threshold > owners.length)
    throw new OwnersChangeRefused(`threshold: a whole number from 1 to ${owners.length} (the owners)`);
  return { owners, threshold: asked.threshold };
}

// Who owns the treasury's account, as the account itself says (contract section 14: changing owners or threshold
// is a transaction the owners sign). TREASURY_OWNERS and TREASURY_THRESHOLD describe the account as it was set
// up; once the owners have changed them on chain (an `owners` request, or a call of their own), only the chain is
// right: the signatures that count and how many a request needs are read from the MultiSigDeleGator's getSigners
// and getThreshold. A reading is kept per chain client (one per rail, so per process) until an `owners` request
// of this account completes — on any instance: the count of those is read from the database each time, one cheap
// query, so an instance that did not submit the change follows it too.
import { MultiSigDeleGator } from '@metamask/delegation-abis';
import type { Kysely } from 'kysely';
import { decodeFunctionData, encodeFunctionData, type Hex } from 'viem';
import type { Database } from '../../store/schema.ts';
import type { ChainClient } from '../client.ts';
import type { EvmConfig } from '../config.ts';
import type { ServiceKeys } from '../keys.ts';
import { boundedAccount } from './bounded.ts';
import type { Address } from './delegation.ts';

export interface AccountOwners {
  /** Lower-case, sorted. */
  owners: Address[];
  threshold: number;
}

export interface OwnersReadDeps {
  db: Kysely<Database>;
  client: ChainClient;
  config: EvmConfig;
  keys: Pick<ServiceKeys, 'treasury'>;
}

/** The account's call that replaces its owners and threshold (the framework's own, clearing the old owners). */
export function updateOwnersCallData(change: AccountOwners): Hex {
  return encodeFunctionData({
    abi: MultiSigDeleGator,
    functionName: 'updateMultiSigParameters',
    args: [change.owners, BigInt(change.threshold), true],
  });
}

/** Pure: the owners and threshold a change's call sets (the inverse of updateOwnersCallData). */
export function ownersChangeOf(callData: Hex): AccountOwners {
  const { args } = decodeFunctionData({ abi: MultiSigDeleGator, data: callData });
  const [owners, threshold] = args as unknown as [readonly string[], bigint];
  return { owners: normalOwners(owners), threshold: Number(threshold) };
}

/** The owners and threshold the account has on chain; null while it is not deployed. */
export async function readAccountOwners(
  client: ChainClient,
  account: Address,
): Promise<AccountOwners | null> {
  const code = await client.getCode({ address: account });
  if (code === undefined || code === '0x') return null;
  const read = (functionName: 'getSigners' | 'getThreshold') =>
    client.readContract({ address: account, abi: MultiSigDeleGator, functionName });
  const [signers, threshold] = await Promise.all([read('getSigners'), read('getThreshold')]);
  return { owners: normalOwners(signers as readonly string[]), threshold: Number(threshold) };
}

const readings = new WeakMap<ChainClient, Map<string, { changes: number; owners: AccountOwners }>>();

/**
 * The owners whose signatures count now, and the threshold a new request needs. A hybrid account's come from the
 * configuration (its keys are its passkeys and one owner, any one of which signs); an account not yet deployed
 * will be deployed with the configured ones. `fresh`: read the chain whatever is kept (a change made with another
 * tool is not counted in the database).
 */
export async function currentOwners(deps: OwnersReadDeps, fresh = false): Promise<AccountOwners> {
  const bounded = deps.config.bounded!;
  const configured = { owners: bounded.owners, threshold: bounded.threshold };
  if (bounded.accountKind === 'hybrid') return configured;
  const account = boundedAccount(bounded, deps.keys);
  const changes = await completedChanges(deps.db, deps.config.chainId, account);
  const kept = readings.get(deps.client) ?? new Map();
  readings.set(deps.client, kept);
  const hit = kept.get(account);
  if (!fresh && hit !== undefined && hit.changes === changes) return hit.owners;
  const read = await readAccountOwners(deps.client, account);
  if (read === null) return configured;
  kept.set(account, { changes, owners: read });
  return read;
}

/** How many changes of this account's owners have completed: a new one makes the kept reading stale. */
async function completedChanges(db: Kysely<Database>, chainId: number, account: string): Promise<number> {
  const row = await db
    .selectFrom('treasury_signature_requests')
    .select((eb) => eb.fn.countAll<string | number | bigint>().as('n'))
    .where('chain_id', '=', BigInt(chainId))
    .where('account', '=', account)
    .where('kind', '=', 'owners')
    .where('status', '=', 'completed')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Refuses to start a multisig treasury whose account TREASURY_OWNERS and TREASURY_THRESHOLD compute (no
 * TREASURY_ACCOUNT) once its owners changed: the computed address follows the variables, so editing them to the
 * new owners would point the service at another, empty account. From the first change on, the account is
 * adopted by its address. Throws with what to set.
 */
export async function checkComputedAccount(deps: OwnersReadDeps): Promise<void> {
  const bounded = deps.config.bounded!;
  if (bounded.accountKind !== 'multisig' || bounded.account !== undefined) return;
  const changed = await deps.db
    .selectFrom('treasury_signature_requests')
    .select('account')
    .where('chain_id', '=', BigInt(deps.config.chainId))
    .where('kind', '=', 'owners')
    .where('status', '=', 'completed')
    .orderBy('updated_at_ms', 'desc')
    .executeTakeFirst();
  if (changed !== undefined)
    throw new Error(
      `the owners of the treasury's account ${changed.account} were changed through the service: set TREASURY_ACCOUNT=${changed.account} (TREASURY_OWNERS and TREASURY_THRESHOLD no longer compute its address)`,
    );
  const account = boundedAccount(bounded, deps.keys);
  const onChain = await readAccountOwners(deps.client, account);
  if (onChain !== null && !sameOwners(onChain, bounded))
    throw new Error(
      `the treasury's account ${account} has other owners or another threshold on chain (${onChain.owners.join(',')}; ${onChain.threshold}) than TREASURY_OWNERS and TREASURY_THRESHOLD: set TREASURY_ACCOUNT=${account} to keep using it`,
    );
}

/** Pure: lower-case, sorted (the order the service compares and submits them in). */
export function normalOwners(owners: readonly string[]): Address[] {
  return owners.map((o) => o.toLowerCase() as Address).sort();
}

/** Pure: the same owners (in any order or case) and the same threshold. */
export function sameOwners(a: AccountOwners, b: AccountOwners): boolean {
  const x = normalOwners(a.owners);
  const y = normalOwners(b.owners);
  return a.threshold === b.threshold && x.length === y.length && x.every((o, i) => o === y[i]);
}

// What a database must agree with before the service starts on it. A database remembers the rail it was
// created on, and on `evm` its chain and treasury address: a sandbox database started on `evm` would show
// addresses nobody holds a key for (money sent there would be lost), an `evm` database started on the sandbox
// would simulate payouts of real money, and a changed mnemonic would make every address someone else's.
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import type { Rail } from './config.ts';

/** The first block the deposit watcher reads. */
export const DEPOSITS_START_SETTING = 'deposits_start_block';
/** The next BIP-44 index a new wallet's address takes (services/wallets/addresses.ts advances it; set to 1 here). */
export const NEXT_DERIVATION_INDEX = 'next_derivation_index';
/**
 * Where the service's history on chain begins, fixed when the rail is set up on a database, before its first
 * address exists: no transfer to a service address can be older, so verify-ledger --chain scans from here.
 * Databases from releases before it lack it (their deposit start was picked lazily, possibly too late).
 */
export const CHAIN_HISTORY_START_SETTING = 'chain_history_start_block';

export const depositCursorName = (chainId: number) => `deposits:${chainId}`;

export interface RailIdentity {
  rail: Rail;
  /** evm only: the chain id and the lower-case treasury address (index 0 of the mnemonic). */
  chainId: number | null;
  treasury: string | null;
}

export type RailStart = { ok: true; writes: Array<[string, string]> } | { ok: false; message: string };

/** Pure: may a database with these settings (and this many wallets) start as `wanted`, and what to record. */
export function decideRailStart(
  stored: ReadonlyMap<string, string>,
  walletCount: number,
  wanted: RailIdentity,
): RailStart {
  // Releases before the evm rail recorded nothing and had only the sandbox rail.
  const storedRail = stored.get('rail') ?? (walletCount > 0 ? 'sandbox' : undefined);
  if (storedRail !== undefined && storedRail !== wanted.rail) return refusal(storedRail, wanted.rail);
  if (wanted.rail === 'sandbox') return { ok: true, writes: stored.has('rail') ? [] : [['rail', 'sandbox']] };
  const chainId = String(wanted.chainId);
  const storedChain = stored.get('chain_id');
  if (storedChain !== undefined && storedChain !== chainId) {
    return {
      ok: false,
      message: `this database belongs to chain ${storedChain}, but EVM_CHAIN_ID is ${chainId}; use a new database for another chain`,
    };
  }
  const storedTreasury = stored.get('treasury_address');
  if (storedTreasury !== undefined && storedTreasury !== wanted.treasury) {
    return {
      ok: false,
      message: `TREASURY_MNEMONIC is not the one this database was created with: its treasury is ${storedTreasury}, the mnemonic's is ${wanted.treasury}; every wallet address would belong to another key`,
    };
  }
  if (storedRail !== undefined) return { ok: true, writes: [] };
  return {
    ok: true,
    writes: [
      ['rail', 'evm'],
      ['chain_id', chainId],
      ['treasury_address', wanted.treasury ?? ''],
      [NEXT_DERIVATION_INDEX, '1'],
    ],
  };
}

function refusal(storedRail: string, wantedRail: Rail): RailStart {
  if (storedRail === 'sandbox') {
    return {
      ok: false,
      message:
        'this database was created on the sandbox rail: its wallet addresses have no keys, so real USDC sent to them could never be moved. Start it with RAIL=sandbox, or give RAIL=evm a new database (DATA_DIR or DATABASE_URL)',
    };
  }
  return {
    ok: false,
    message: `this database was created on the ${storedRail} rail and holds real money; start it with RAIL=${storedRail}, not RAIL=${wantedRail}`,
  };
}

export class RailMismatchError extends Error {}

/** Reads the settings, decides, records what a first start must record; throws RailMismatchError to refuse. */
export async function prepareRail(db: Kysely<Database>, wanted: RailIdentity): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const rows = await trx.selectFrom('service_settings').selectAll().execute();
    const stored = new Map(rows.map((r) => [r.key, r.value]));
    const { n } = await trx
      .selectFrom('wallets')
      .select((eb) => eb.fn.countAll<bigint>().as('n'))
      .executeTakeFirstOrThrow();
    const decision = decideRailStart(stored, Number(n), wanted);
    if (!decision.ok) throw new RailMismatchError(decision.message);
    if (decision.writes.length === 0) return;
    await trx
      .insertInto('service_settings')
      .values(decision.writes.map(([key, value]) => ({ key, value })))
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
  });
}

export interface DepositStartState {
  /** The watcher's stored cursor (the last block credited), or null on a database that never fixed it. */
  cursor: bigint | null;
  /** The recorded first block of the watcher, or null. */
  recordedStart: bigint | null;
  walletCount: number;
  /** CHAIN_START_BLOCK, if set. */
  configured: bigint | undefined;
  /** The chain's head, read only when the decision needs it; null when the chain could not be read. */
  head: bigint | null;
}

export type DepositStart =
  | { action: 'keep' }
  | { action: 'set'; start: bigint }
  | { action: 'rewind'; start: bigint }
  | { action: 'refuse'; message: string };

/** Pure: does deciding the watcher's start need the chain's head? Only a new database without CHAIN_START_BLOCK. */
export function depositStartNeedsHead(state: Omit<DepositStartState, 'head'>): boolean {
  return state.cursor === null && state.walletCount === 0 && state.configured === undefined;
}

/**
 * Pure: where the deposit watcher starts. Fixed once, before the first address exists (a deposit to an address
 * handed out before the start would never be read); never lazily at a later head. A CHAIN_START_BLOCK below the
 * recorded start rewinds the watcher (deposits are unique by transaction and log, so none is credited twice).
 */
export function decideDepositStart(state: DepositStartState): DepositStart {
  if (state.cursor !== null) {
    const recorded = state.recordedStart ?? state.cursor + 1n;
    if (state.configured !== undefined && state.configured < recorded)
      return { action: 'rewind', start: state.configured };
    return { action: 'keep' };
  }
  if (state.configured !== undefined) return { action: 'set', start: state.configured };
  if (state.walletCount > 0) {
    return {
      action: 'refuse',
      message: `this evm database has ${state.walletCount} wallets but its deposit watcher never recorded where it starts: set CHAIN_START_BLOCK to a block before the first of them was created, or deposits made since could be missed`,
    };
  }
  if (state.head === null) {
    return {
      action: 'refuse',
      message:
        'the chain at EVM_RPC_URL cannot be read: a new evm database fixes the block its deposits start at before it hands out any address. Start again when the chain answers (or set CHAIN_START_BLOCK)',
    };
  }
  return { action: 'set', start: state.head };
}

/**
 * Fixes the deposit watcher's start on this database (see decideDepositStart) before the service hands out an
 * address; throws RailMismatchError when it cannot be fixed safely. `readHead` is bounded by the chain client.
 */
export async function fixDepositStart(
  db: Kysely<Database>,
  chain: { chainId: number; startBlock: bigint | undefined },
  readHead: () => Promise<bigint>,
): Promise<DepositStart> {
  const cursorName = depositCursorName(chain.chainId);
  const known = await readDepositStartState(db, cursorName, chain.startBlock);
  const head = depositStartNeedsHead(known) ? await readHead().catch(() => null) : null;
  const decision = decideDepositStart({ ...known, head });
  if (decision.action === 'refuse') throw new RailMismatchError(decision.message);
  if (decision.action === 'keep') return decision;
  await db.transaction().execute(async (trx) => {
    const cursor = decision.start - 1n;
    if (decision.action === 'rewind') {
      await trx
        .updateTable('chain_cursors')
        .set({ block_number: cursor })
        .where('name', '=', cursorName)
        .execute();
    } else {
      // Two instances starting a new database at once: the first one's start stands.
      await trx
        .insertInto('chain_cursors')
        .values({ name: cursorName, block_number: cursor })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
    }
    const value = String(decision.start);
    const rows = [DEPOSITS_START_SETTING, CHAIN_HISTORY_START_SETTING].map((key) => ({ key, value }));
    await trx
      .insertInto('service_settings')
      .values(rows)
      .onConflict((oc) =>
        decision.action === 'rewind' ? oc.column('key').doUpdateSet({ value }) : oc.column('key').doNothing(),
      )
      .execute();
  });
  return decision;
}

async function readDepositStartState(
  db: Kysely<Database>,
  cursorName: string,
  configured: bigint | undefined,
): Promise<Omit<DepositStartState, 'head'>> {
  const cursor = await db
    .selectFrom('chain_cursors')
    .select('block_number')
    .where('name', '=', cursorName)
    .executeTakeFirst();
  const start = await db
    .selectFrom('service_settings')
    .select('value')
    .where('key', '=', DEPOSITS_START_SETTING)
    .executeTakeFirst();
  const { n } = await db
    .selectFrom('wallets')
    .select((eb) => eb.fn.countAll<bigint>().as('n'))
    .executeTakeFirstOrThrow();
  return {
    cursor: cursor === undefined ? null : BigInt(cursor.block_number),
    recordedStart: start === undefined ? null : BigInt(start.value),
    walletCount: Number(n),
    configured,
  };
}

// What a database must agree with before the service starts on it. A database remembers the rail it was
// created on, and on `evm` its chain and treasury address: a sandbox database started on `evm` would show
// addresses nobody holds a key for (money sent there would be lost), an `evm` database started on the sandbox
// would simulate payouts of real money, and a changed mnemonic would make every address someone else's.
import type { Kysely } from 'kysely';
import type { Rail } from '../config.ts';
import { NEXT_DERIVATION_INDEX } from '../services/addresses.ts';
import type { Database } from '../store/schema.ts';

/** The first block the deposit watcher read: where the service's history on chain begins. */
export const DEPOSITS_START_SETTING = 'deposits_start_block';

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

// What every money command module is given and gives: the kinds it decides (domain/money/), what its commands
// name for the batch's one load (`name`), and, per effect family it owns, its write steps and its events. The
// registry (registry.ts) puts them together in the one order the write plan keeps.
import type { Kysely } from 'kysely';
import type { HeldRow } from '../../../domain/money/batch-state.ts';
import type { Dialect } from '../../../store/db.ts';
import type { Database } from '../../../store/schema.ts';

/** What a batch's commands name, gathered command by command for the batch's one load. */
export interface Named {
  /** Agent wallets that pay or are answered for (their policies, spending and alerts are loaded). */
  agentIds: Set<string>;
  /** Recipients by address: credited in the batch if they are wallets of this service. */
  addresses: Set<string>;
  /** Users whose master wallet a command moves money of. */
  masterUsers: Set<string>;
  /** Agent wallets a fund or withdraw answers with (their pending count is loaded). */
  movedAgents: Set<string>;
}

export function emptyNamed(): Named {
  return { agentIds: new Set(), addresses: new Set(), masterUsers: new Set(), movedAgents: new Set() };
}

/** How a module's write steps are built: the batch's transaction and dialect, and the rail's payout address. */
export interface StepContext {
  trx: Kysely<Database>;
  dialect: Dialect;
  /** The treasury address payouts are sent from (evm); null on a rail that settles at once. */
  payoutFromAddress: string | null;
}

/** The payments the batch's approve, reject and expire commands answer, read before the wallets' state. */
export type HeldRows = ReadonlyMap<string, HeldRow>;

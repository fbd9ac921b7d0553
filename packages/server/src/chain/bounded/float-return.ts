// The float's ceiling, kept from the other side: in bounded mode whatever the service's key holds above
// TREASURY_FLOAT_MAX (and above what its payments in flight still need) goes back into the owners' account. This is
// how a hot deployment switches to bounded with nothing lost: started with TREASURY_MODE=bounded, its first rounds
// move the hot treasury into the account, leaving the float. A USDC sweep of the hot days that lands late, or USDC
// sent to the service's key by anyone, follows the same way. The move is an outbox row of kind `float_return` — a
// transaction of the service's key like a payout: stored before it is broadcast, re-sent after a crash, never a
// second one — between two addresses of the service: no wallet's balance changes, and verify-ledger --chain
// matches it to its row.
import type { Kysely } from 'kysely';
import { newId } from '../../domain/ids.ts';
import type { Database } from '../../store/schema.ts';
import type { RailContext } from '../books.ts';
import type { ChainClient } from '../client.ts';
import type { EvmConfig } from '../config.ts';
import type { ServiceKeys } from '../keys.ts';
import { usdcAbi } from '../token.ts';

type Address = `0x${string}`;

/** Pure: what goes back to the account (0: nothing), keeping the float's ceiling plus what is still owed from it. */
export function floatReturnAmount(floatMicros: bigint, floatMaxMicros: bigint, owedMicros: bigint): bigint {
  const excess = floatMicros - floatMaxMicros - owedMicros;
  return excess > 0n ? excess : 0n;
}

/**
 * What the float still owes: payouts queued or sent (signed by the service's key, maybe not yet mined) and paid
 * requests whose authorization the service's key signs or signed (a seller may still use it). Counted in full
 * even when already used: the float keeps a little more until they settle, never less than it needs.
 */
export async function floatOwedMicros(db: Kysely<Database>): Promise<bigint> {
  const [payouts, paid] = await Promise.all([
    db
      .selectFrom('chain_outbox')
      .select((eb) => eb.fn.sum<bigint | string | null>('amount_micros').as('n'))
      .where('kind', '=', 'payout')
      .where('status', 'in', ['queued', 'sent'])
      .executeTakeFirst(),
    db
      .selectFrom('x402_payments')
      .select((eb) => eb.fn.sum<bigint | string | null>('amount_micros').as('n'))
      .where('state', 'in', ['approved', 'signed', 'permit_signed'])
      .executeTakeFirst(),
  ]);
  return BigInt(payouts?.n ?? 0) + BigInt(paid?.n ?? 0);
}

/**
 * A return, a refill or an owners' operation in flight: the float's balance is about to change, so nothing is
 * decided on it now. An owners' operation may be the top-up of an x402 or MPP payment that waits for them: mined
 * but not yet confirmed, its money is in the float while its payment is not yet counted as owed (it is once the
 * confirmation approves the payment, in the same transaction that ends the operation) — returned in between, the
 * payment the owners signed for would find the float empty.
 */
async function floatMoving(db: Kysely<Database>): Promise<boolean> {
  const row = await db
    .selectFrom('chain_outbox')
    .select('id')
    .where('kind', 'in', ['float_return', 'refill', 'owners_op'])
    .where('status', 'in', ['queued', 'sent'])
    .executeTakeFirst();
  return row !== undefined;
}

/** Queues the float's excess back to the owners' account when there is one and nothing moves it; the amount. */
export async function planFloatReturnOnce(deps: {
  ctx: RailContext;
  client: ChainClient;
  config: EvmConfig;
  keys: Pick<ServiceKeys, 'treasury'>;
  /** The owners' account. */
  account: Address;
}): Promise<bigint> {
  const bounded = deps.config.bounded;
  if (bounded === null) return 0n;
  const db = deps.ctx.store.db;
  if (await floatMoving(db)) return 0n;
  const [floatMicros, owedMicros] = await Promise.all([
    deps.client.readContract({
      address: deps.config.usdcAddress as Address,
      abi: usdcAbi,
      functionName: 'balanceOf',
      args: [deps.keys.treasury.address],
    }),
    floatOwedMicros(db),
  ]);
  const amountMicros = floatReturnAmount(floatMicros, bounded.floatMaxMicros, owedMicros);
  if (amountMicros === 0n) return 0n;
  // Never to an address without the owners' account on it (a wrong framework address would compute another).
  const code = await deps.client.getCode({ address: deps.account });
  if (code === undefined || code === '0x') return 0n;
  const from = deps.keys.treasury.address.toLowerCase();
  const nowMs = BigInt(deps.ctx.clock.nowMs());
  const queued = await deps.ctx.writer.run(async (trx) => {
    // Re-checked in the writing transaction: two rounds (or instances) never queue two returns.
    if (await floatMoving(trx)) return false;
    await trx
      .insertInto('chain_outbox')
      .values({
        id: newId('obx'),
        kind: 'float_return',
        transaction_id: null,
        wallet_id: null,
        from_address: from,
        to_address: deps.account.toLowerCase(),
        amount_micros: amountMicros,
        status: 'queued',
        tx_hashes_json: '[]',
        attempts: 0n,
        created_at_ms: nowMs,
        updated_at_ms: nowMs,
      })
      .execute();
    return true;
  });
  return queued ? amountMicros : 0n;
}

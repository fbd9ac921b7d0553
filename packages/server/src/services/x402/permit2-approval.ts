// The treasury's one-time Permit2 approval (contract section 13): a Permit2 authorization (x402 `upto`) moves USDC
// only if the treasury has approved Permit2 over it. That approval is the service's business, never the agent's:
// the first payment that needs it queues USDC `approve(Permit2, max)` in the treasury's outbox — signed, stored
// and broadcast by the sender like any treasury transaction, so a crash resumes it instead of sending another —
// and is refused (503, nothing decided, signed or debited) until the approval is CONFIRMATIONS deep; the agent
// retries the same call. Refusing rather than waiting keeps a request from hanging on block times.
import type { Address } from 'viem';
import { PERMIT2_ALLOWANCE_ENOUGH, permit2Allowance } from '../../chain/permit2.ts';
import { newId } from '../../domain/ids.ts';
import { PERMIT2_ADDRESS } from '../../domain/permit2.ts';
import { AppError } from '../../errors.ts';
import type { AuthorizationKind } from '../../payments/method.ts';
import type { X402Deps } from './sign.ts';

/** Refuses (503) a Permit2 payment while the treasury's approval of Permit2 is not confirmed, queuing it once. */
export async function refuseUntilApproved(
  deps: X402Deps,
  authorization: AuthorizationKind,
  walletId: string,
): Promise<void> {
  if (authorization !== 'permit2') return;
  const { client, config, keys } = deps.rail;
  const head = await client.getBlockNumber({ cacheTime: 0 });
  const confirmedAt = head - BigInt(Math.max(0, config.confirmations - 1));
  const allowance = await permit2Allowance(client, config.usdcAddress, keys.treasury.address, confirmedAt);
  if (allowance >= PERMIT2_ALLOWANCE_ENOUGH) return;
  const queued = await queueApproval(deps, walletId);
  throw new AppError(
    'SERVICE_UNAVAILABLE',
    `this payment is authorized through Permit2, and the treasury's one-time approval of Permit2 ${queued ? 'was just sent' : 'is on its way'} to the chain; retry in a minute (nothing was signed or debited)`,
  );
}

/** Queues the approval unless one is queued or sent already; true when this call queued it. */
async function queueApproval(deps: X402Deps, walletId: string): Promise<boolean> {
  const nowMs = BigInt(deps.ctx.clock.nowMs());
  return deps.ctx.writer.run(
    async (trx) => {
      const pending = await trx
        .selectFrom('chain_outbox')
        .select('id')
        .where('kind', '=', 'approve')
        .where('status', 'in', ['queued', 'sent'])
        .executeTakeFirst();
      if (pending !== undefined) return false;
      await trx
        .insertInto('chain_outbox')
        .values({
          id: newId('obx'),
          kind: 'approve',
          transaction_id: null,
          // The wallet whose payment asked for it (the row must name one); the approval moves no money of it.
          wallet_id: walletId,
          from_address: deps.rail.treasuryAddress,
          to_address: (PERMIT2_ADDRESS as Address).toLowerCase(),
          amount_micros: 0n,
          status: 'queued',
          tx_hashes_json: '[]',
          attempts: 0n,
          created_at_ms: nowMs,
          updated_at_ms: nowMs,
        })
        .execute();
      return true;
    },
    { wallets: [walletId] },
  );
}

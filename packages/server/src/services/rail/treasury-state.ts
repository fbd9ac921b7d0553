// GET /api/v1/wallet/treasury (contract section 14): where the money rests and what a breach of the server could
// take, read fresh from the chain (a cached reading a sweep may have outdated would understate it).
import { treasuryStateView } from '../../chain/treasury-view.ts';
import { AppError } from '../../errors.ts';
import type { Services } from '../index.ts';

export async function treasuryState(services: Pick<Services, 'chain'>) {
  const chain = services.chain;
  if (chain === null) throw new AppError('NOT_FOUND', 'the treasury view exists on the evm rail only');
  const reading = await chain.rail.treasury.refresh();
  if (reading === null)
    throw new AppError('SERVICE_UNAVAILABLE', 'the chain cannot be read; retry shortly', {
      headers: { 'retry-after': '5' },
    });
  return treasuryStateView(chain.rail.config.treasuryMode, reading);
}

/** An owner's signature for a payment of this user's that waits for the owners (bounded mode only). */
export async function handInSignature(
  services: Pick<Services, 'chain'>,
  userId: string,
  id: string,
  signature: `0x${string}`,
) {
  const owners = services.chain?.owners ?? null;
  if (owners === null) throw new AppError('NOT_FOUND', 'signatures are taken in bounded treasury mode only');
  return owners.sign(userId, id, signature);
}

/** The owners' request that revokes the service's delegation (bounded mode only); the waiting one if any. */
export async function revokeDelegation(services: Pick<Services, 'chain'>) {
  const owners = services.chain?.owners ?? null;
  if (owners === null) throw new AppError('NOT_FOUND', 'the delegation exists in bounded treasury mode only');
  return owners.revoke();
}

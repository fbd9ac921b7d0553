// GET /api/v1/wallet/treasury (contract section 14): where the money rests and what a breach of the server could
// take, read fresh from the chain (a cached reading a sweep may have outdated would understate it).
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { OwnersListQuery } from '../../chain/bounded/owners-requests.ts';
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

function ownersGate(services: Pick<Services, 'chain'>) {
  const owners = services.chain?.owners ?? null;
  if (owners === null) throw new AppError('NOT_FOUND', 'signatures are taken in bounded treasury mode only');
  return owners;
}

/**
 * An owner's signature for a payment of this user's that waits for the owners (bounded mode only): an address's
 * EIP-712 signature, or — a hybrid account — the assertion of the caller's own passkey (`personId`: the human
 * signed in, whose enrolled credential it must be).
 */
export async function handInSignature(
  services: Pick<Services, 'chain'>,
  caller: { userId: string; personId: string },
  id: string,
  proof: { signature: `0x${string}` } | { passkey: AuthenticationResponseJSON },
) {
  const owners = ownersGate(services);
  if ('signature' in proof) return owners.sign(caller.userId, id, proof.signature);
  return owners.signWithPasskey(caller.userId, caller.personId, id, proof.passkey);
}

/** WebAuthn request options whose challenge is the request's hash (a hybrid account's passkeys). */
export async function passkeySignatureOptions(
  services: Pick<Services, 'chain'>,
  caller: { userId: string; personId: string },
  id: string,
) {
  return ownersGate(services).passkeyOptions(caller.userId, caller.personId, id);
}

/** The owners' requests this user's organization sees, newest first (bounded mode only). */
export async function listSignatureRequests(
  services: Pick<Services, 'chain'>,
  userId: string,
  query: OwnersListQuery,
) {
  const owners = services.chain?.owners ?? null;
  if (owners === null)
    throw new AppError('NOT_FOUND', 'signature requests exist in bounded treasury mode only');
  return owners.list(userId, query);
}

/** The owners' request that revokes the service's delegation (bounded mode only); the waiting one if any. */
export async function revokeDelegation(services: Pick<Services, 'chain'>) {
  const owners = services.chain?.owners ?? null;
  if (owners === null) throw new AppError('NOT_FOUND', 'the delegation exists in bounded treasury mode only');
  return owners.revoke();
}

/** The owners' request that changes the account's owners and threshold (bounded mode only). */
export async function changeTreasuryOwners(
  services: Pick<Services, 'chain'>,
  change: { owners: string[]; threshold: number },
) {
  const owners = services.chain?.owners ?? null;
  if (owners === null)
    throw new AppError('NOT_FOUND', 'the owners’ account exists in bounded treasury mode only');
  return owners.changeOwners(change);
}

// A new login: its own organization (with its master wallet), or with an invitation's token a member of that
// organization with the invitation's role. The session starts once the transaction committed.
import { isoFromMs } from '../../clock.ts';
import { hashPassword } from '../../domain/identity/passwords.ts';
import { newId } from '../../domain/ids.ts';
import { AppError } from '../../errors.ts';
import { isUniqueViolation } from '../../store/errors.ts';
import type { ServiceContext } from '../context.ts';
import { acceptInvitation, foundOrganization } from '../organizations/organizations.ts';
import type { RequestMeta } from '../organizations/security-events.ts';
import type { AddressSource } from '../wallets/addresses.ts';
import { createMasterWallet } from '../wallets/wallets.ts';
import type { AuthResult } from './account.ts';

export function createSignup(
  ctx: ServiceContext,
  deps: { addresses: AddressSource; startSession: (userId: string, meta: RequestMeta) => Promise<string> },
) {
  const { writer, clock } = ctx;
  const { addresses } = deps;

  return async function signup(
    email: string,
    password: string,
    meta: RequestMeta,
    invitationToken?: string,
  ): Promise<AuthResult> {
    const passwordHash = await hashPassword(password);
    const nowMs = clock.nowMs();
    const userId = newId('usr');
    try {
      await writer.run(async (trx) => {
        await trx
          .insertInto('users')
          .values({
            id: userId,
            email,
            password_hash: passwordHash,
            created_at_ms: BigInt(nowMs),
            password_changed_at_ms: BigInt(nowMs),
          })
          .execute();
        if (invitationToken === undefined) {
          await foundOrganization(trx, userId, nowMs);
          await createMasterWallet(trx, { userId, nowMs, addresses });
        } else {
          await acceptInvitation(trx, { userId, email, token: invitationToken, nowMs });
        }
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw new AppError('EMAIL_TAKEN', 'an account with this email already exists');
      throw error;
    }
    const token = await deps.startSession(userId, meta);
    return { user: { id: userId, email, createdAt: isoFromMs(nowMs) }, token };
  };
}

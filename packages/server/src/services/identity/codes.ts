// The codes a user types: a TOTP code or a recovery code, each accepted once, also under a race (acceptance is a
// conditional update, and only the request whose update changed the row wins). Recovery codes are stored as
// SHA-256 and back up a factor: with none left they go.
import type { Kysely } from 'kysely';
import {
  checkTotp,
  classifyCode,
  normaliseRecoveryCode,
  secretDigest,
} from '../../domain/identity/second-factor.ts';
import { newId } from '../../domain/ids.ts';
import type { Database } from '../../store/schema.ts';
import type { ServiceContext } from '../context.ts';

export function createCodeCheck(ctx: ServiceContext) {
  const { store, writer, clock } = ctx;

  async function useCode(userId: string, code: string): Promise<boolean> {
    const parsed = classifyCode(code.trim());
    if (parsed === null) return false;
    if (parsed.kind === 'recovery') return useRecoveryCode(userId, parsed.code);
    const row = await store.db
      .selectFrom('totp_factors')
      .select(['secret', 'last_time_step'])
      .where('user_id', '=', userId)
      .where('confirmed_at_ms', 'is not', null)
      .executeTakeFirst();
    if (row === undefined) return false;
    const check = await checkTotp(row.secret, parsed.code, clock.nowMs(), row.last_time_step);
    if (!check.ok) return false;
    // Two requests with the same code: only the one that moves the step forward is accepted.
    const accepted = await writer.run((trx) =>
      trx
        .updateTable('totp_factors')
        .set({ last_time_step: check.timeStep })
        .where('user_id', '=', userId)
        .where((eb) => eb.or([eb('last_time_step', 'is', null), eb('last_time_step', '<', check.timeStep)]))
        .executeTakeFirst(),
    );
    return accepted.numUpdatedRows === 1n;
  }

  /** A recovery code is used once, ever: the update that marks it is the check. */
  async function useRecoveryCode(userId: string, bare: string): Promise<boolean> {
    const digest = secretDigest(bare);
    const used = await writer.run((trx) =>
      trx
        .updateTable('recovery_codes')
        .set({ used_at_ms: BigInt(clock.nowMs()) })
        .where('user_id', '=', userId)
        .where('code_hash', '=', digest)
        .where('used_at_ms', 'is', null)
        .executeTakeFirst(),
    );
    return used.numUpdatedRows === 1n;
  }

  return { useCode };
}

/** Recovery codes back up a factor: with none left they would be a password of their own, so they go. */
export async function dropRecoveryCodesWithoutFactor(trx: Kysely<Database>, userId: string): Promise<void> {
  const passkey = await trx
    .selectFrom('passkeys')
    .select('id')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (passkey !== undefined || (await activeTotp(trx, userId))) return;
  await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
}

export async function activeTotp(trx: Kysely<Database>, userId: string): Promise<boolean> {
  const row = await trx
    .selectFrom('totp_factors')
    .select('user_id')
    .where('user_id', '=', userId)
    .where('confirmed_at_ms', 'is not', null)
    .executeTakeFirst();
  return row !== undefined;
}

export async function replaceRecoveryCodes(
  trx: Kysely<Database>,
  userId: string,
  codes: string[],
  nowMs: number,
) {
  await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  await trx
    .insertInto('recovery_codes')
    .values(
      codes.map((code) => ({
        id: newId('rcv'),
        user_id: userId,
        code_hash: secretDigest(normaliseRecoveryCode(code)!),
        used_at_ms: null,
        created_at_ms: BigInt(nowMs),
      })),
    )
    .execute();
}

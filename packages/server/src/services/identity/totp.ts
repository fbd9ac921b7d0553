// TOTP as a second factor: enrolled (a secret shown once), confirmed by a first code (which also hands out ten
// recovery codes), removed (and the recovery codes with it once no factor is left).
import type { Kysely } from 'kysely';
import { checkTotp, newRecoveryCodes, newTotpSecret, totpUri } from '../../domain/identity/second-factor.ts';
import { AppError } from '../../errors.ts';
import type { Database } from '../../store/schema.ts';
import type { EventOutbox, ServiceContext } from '../context.ts';
import { type RequestMeta, recordSecurityEvent } from '../organizations/security-events.ts';
import { activeTotp, dropRecoveryCodesWithoutFactor, replaceRecoveryCodes } from './codes.ts';

export function createTotp(ctx: ServiceContext) {
  const { store, writer, clock } = ctx;

  async function startTotp(userId: string) {
    const user = await store.db
      .selectFrom('users')
      .select('email')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const secret = newTotpSecret();
    const replaced = await writer.run((trx) => replaceEnrolment(trx, userId, secret, clock.nowMs()));
    if (!replaced)
      throw new AppError('INVALID_STATE', 'TOTP is already active; remove it before enrolling again');
    return { secret, otpauthUrl: totpUri(secret, user.email) };
  }

  async function confirmTotp(userId: string, code: string, meta: RequestMeta) {
    const row = await store.db
      .selectFrom('totp_factors')
      .selectAll()
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (row === undefined || row.confirmed_at_ms !== null) {
      throw new AppError(
        'INVALID_STATE',
        'there is no TOTP enrolment waiting: POST /api/v1/auth/mfa/totp first',
      );
    }
    const nowMs = clock.nowMs();
    const check = await checkTotp(row.secret, code, nowMs, null);
    if (!check.ok) {
      throw new AppError(
        'VALIDATION_ERROR',
        'code does not match the enrolled secret (check the authenticator app’s clock)',
      );
    }
    const recoveryCodes = newRecoveryCodes();
    const confirmed = await writer.run((trx) =>
      confirmEnrolment(
        trx,
        userId,
        { secret: row.secret, timeStep: check.timeStep, recoveryCodes, meta, nowMs },
        ctx.events,
      ),
    );
    if (!confirmed)
      throw new AppError('INVALID_STATE', 'this TOTP enrolment was already confirmed or replaced');
    return { recoveryCodes };
  }

  async function removeTotp(userId: string, meta: RequestMeta) {
    const nowMs = clock.nowMs();
    const removed = await writer.run((trx) => removeFactor(trx, userId, { meta, nowMs }, ctx.events));
    if (!removed) throw new AppError('NOT_FOUND', 'TOTP is not active');
  }

  return { startTotp, confirmTotp, removeTotp };
}

/** A new enrolment waiting for its first code, in place of an unconfirmed one; false when TOTP is active. */
async function replaceEnrolment(
  trx: Kysely<Database>,
  userId: string,
  secret: string,
  nowMs: number,
): Promise<boolean> {
  if (await activeTotp(trx, userId)) return false;
  await trx.deleteFrom('totp_factors').where('user_id', '=', userId).execute();
  await trx
    .insertInto('totp_factors')
    .values({
      user_id: userId,
      secret,
      confirmed_at_ms: null,
      last_time_step: null,
      created_at_ms: BigInt(nowMs),
    })
    .execute();
  return true;
}

/** The enrolment confirmed (unless it was confirmed or replaced meanwhile), with a fresh set of recovery codes. */
async function confirmEnrolment(
  trx: Kysely<Database>,
  userId: string,
  input: { secret: string; timeStep: bigint; recoveryCodes: string[]; meta: RequestMeta; nowMs: number },
  outbox: EventOutbox,
): Promise<boolean> {
  const { recoveryCodes, meta, nowMs } = input;
  const updated = await trx
    .updateTable('totp_factors')
    .set({ confirmed_at_ms: BigInt(nowMs), last_time_step: input.timeStep })
    .where('user_id', '=', userId)
    .where('secret', '=', input.secret)
    .where('confirmed_at_ms', 'is', null)
    .executeTakeFirst();
  if (updated.numUpdatedRows !== 1n) return false;
  await replaceRecoveryCodes(trx, userId, recoveryCodes, nowMs);
  await recordSecurityEvent(
    trx,
    {
      userId,
      type: 'security.factor_added',
      detail: { factor: 'totp' },
      meta,
      nowMs,
    },
    outbox,
  );
  return true;
}

/** Removes the TOTP factor (false: none was active), and the recovery codes once no factor is left. */
async function removeFactor(
  trx: Kysely<Database>,
  userId: string,
  event: { meta: RequestMeta; nowMs: number },
  outbox: EventOutbox,
): Promise<boolean> {
  const { meta, nowMs } = event;
  const active = await activeTotp(trx, userId);
  await trx.deleteFrom('totp_factors').where('user_id', '=', userId).execute();
  if (!active) return false;
  await dropRecoveryCodesWithoutFactor(trx, userId);
  await recordSecurityEvent(
    trx,
    {
      userId,
      type: 'security.factor_removed',
      detail: { factor: 'totp' },
      meta,
      nowMs,
    },
    outbox,
  );
  return true;
}

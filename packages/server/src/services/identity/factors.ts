// Second factors of a user: TOTP (enrolled, confirmed by a first code, removed), ten recovery codes (stored as
// SHA-256, each used once), and passkeys (counted here; registered by services/identity/passkeys.ts). Every code is
// accepted once, also under a race: acceptance is a conditional update, and only the request whose update
// changed the row wins.
import type { Kysely } from 'kysely';
import {
  checkTotp,
  classifyCode,
  newRecoveryCodes,
  newTotpSecret,
  normaliseRecoveryCode,
  secretDigest,
  totpUri,
} from '../../domain/identity/second-factor.ts';
import { newId } from '../../domain/ids.ts';
import { AppError } from '../../errors.ts';
import type { Database } from '../../store/schema.ts';
import type { ServiceContext } from '../context.ts';
import { type RequestMeta, recordSecurityEvent } from '../organizations/security-events.ts';

export type FactorMethod = 'totp' | 'passkey' | 'recovery_code';

export interface FactorStatus {
  totp: boolean;
  passkeys: number;
  recoveryCodesLeft: number;
}

export interface MfaService {
  status(userId: string): Promise<FactorStatus>;
  /** How this user can prove presence beyond the password; empty when no factor is active. */
  methods(userId: string): Promise<FactorMethod[]>;
  startTotp(userId: string): Promise<{ secret: string; otpauthUrl: string }>;
  confirmTotp(userId: string, code: string, meta: RequestMeta): Promise<{ recoveryCodes: string[] }>;
  removeTotp(userId: string, meta: RequestMeta): Promise<void>;
  /** A TOTP or recovery code of the user: true when right, and then it can never be used again. */
  useCode(userId: string, code: string): Promise<boolean>;
}

/** Pure: the methods a status offers (recovery codes only back up an active factor). */
export function methodsOf(status: FactorStatus): FactorMethod[] {
  const methods: FactorMethod[] = [];
  if (status.totp) methods.push('totp');
  if (status.passkeys > 0) methods.push('passkey');
  if (methods.length > 0 && status.recoveryCodesLeft > 0) methods.push('recovery_code');
  return methods;
}

export function createMfaService(ctx: ServiceContext): MfaService {
  const { store, writer, clock } = ctx;

  async function status(userId: string): Promise<FactorStatus> {
    const [totp, passkeys, codes] = await Promise.all([
      store.db
        .selectFrom('totp_factors')
        .select('user_id')
        .where('user_id', '=', userId)
        .where('confirmed_at_ms', 'is not', null)
        .executeTakeFirst(),
      store.db
        .selectFrom('passkeys')
        .select((eb) => eb.fn.countAll<bigint>().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow(),
      store.db
        .selectFrom('recovery_codes')
        .select((eb) => eb.fn.countAll<bigint>().as('n'))
        .where('user_id', '=', userId)
        .where('used_at_ms', 'is', null)
        .executeTakeFirstOrThrow(),
    ]);
    return { totp: totp !== undefined, passkeys: Number(passkeys.n), recoveryCodesLeft: Number(codes.n) };
  }

  async function startTotp(userId: string) {
    const user = await store.db
      .selectFrom('users')
      .select('email')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const secret = newTotpSecret();
    const replaced = await writer.run(async (trx) => {
      const active = await activeTotp(trx, userId);
      if (active) return false;
      await trx.deleteFrom('totp_factors').where('user_id', '=', userId).execute();
      await trx
        .insertInto('totp_factors')
        .values({
          user_id: userId,
          secret,
          confirmed_at_ms: null,
          last_time_step: null,
          created_at_ms: BigInt(clock.nowMs()),
        })
        .execute();
      return true;
    });
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
    const confirmed = await writer.run(async (trx) => {
      const updated = await trx
        .updateTable('totp_factors')
        .set({ confirmed_at_ms: BigInt(nowMs), last_time_step: check.timeStep })
        .where('user_id', '=', userId)
        .where('secret', '=', row.secret)
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
        ctx.events,
      );
      return true;
    });
    if (!confirmed)
      throw new AppError('INVALID_STATE', 'this TOTP enrolment was already confirmed or replaced');
    return { recoveryCodes };
  }

  async function removeTotp(userId: string, meta: RequestMeta) {
    const nowMs = clock.nowMs();
    const removed = await writer.run(async (trx) => {
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
        ctx.events,
      );
      return true;
    });
    if (!removed) throw new AppError('NOT_FOUND', 'TOTP is not active');
  }

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

  return {
    status,
    methods: async (userId) => methodsOf(await status(userId)),
    startTotp,
    confirmTotp,
    removeTotp,
    useCode,
  };

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

async function activeTotp(trx: Kysely<Database>, userId: string): Promise<boolean> {
  const row = await trx
    .selectFrom('totp_factors')
    .select('user_id')
    .where('user_id', '=', userId)
    .where('confirmed_at_ms', 'is not', null)
    .executeTakeFirst();
  return row !== undefined;
}

async function replaceRecoveryCodes(trx: Kysely<Database>, userId: string, codes: string[], nowMs: number) {
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

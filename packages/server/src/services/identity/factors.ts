// Second factors of a user: TOTP (totp.ts: enrolled, confirmed by a first code, removed), ten recovery codes
// (codes.ts: stored as SHA-256, each used once), and passkeys (counted here; registered by passkeys.ts). Every
// code is accepted once, also under a race: acceptance is a conditional update, and only the request whose
// update changed the row wins.
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';
import type { ServiceContext } from '../context.ts';
import type { RequestMeta } from '../organizations/security-events.ts';
import { createCodeCheck } from './codes.ts';
import { createTotp } from './totp.ts';

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
  const status = (userId: string) => factorStatus(ctx.store.db, userId);
  return {
    status,
    methods: async (userId) => methodsOf(await status(userId)),
    ...createTotp(ctx),
    ...createCodeCheck(ctx),
  };
}

/** Which factors the user has: a confirmed TOTP, how many passkeys, how many recovery codes are left. */
async function factorStatus(db: Kysely<Database>, userId: string): Promise<FactorStatus> {
  const [totp, passkeys, codes] = await Promise.all([
    db
      .selectFrom('totp_factors')
      .select('user_id')
      .where('user_id', '=', userId)
      .where('confirmed_at_ms', 'is not', null)
      .executeTakeFirst(),
    db
      .selectFrom('passkeys')
      .select((eb) => eb.fn.countAll<bigint>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('recovery_codes')
      .select((eb) => eb.fn.countAll<bigint>().as('n'))
      .where('user_id', '=', userId)
      .where('used_at_ms', 'is', null)
      .executeTakeFirstOrThrow(),
  ]);
  return { totp: totp !== undefined, passkeys: Number(passkeys.n), recoveryCodesLeft: Number(codes.n) };
}

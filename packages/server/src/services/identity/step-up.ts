// Proof of presence. Sensitive operations need the session's last proof (login or step-up) recent enough
// (requireStepUp); a step-up renews it with a factor when one is active, else with the password.
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { isoFromMs } from '../../clock.ts';
import { AppError } from '../../errors.ts';
import type { ServiceContext } from '../context.ts';
import { emailOf, passwordMatches } from './account.ts';
import type { FactorMethod, MfaService } from './factors.ts';
import type { GuessLimits } from './guesses.ts';
import type { PasskeyService } from './passkeys.ts';
import type { AuthenticatedUser } from './sessions.ts';

/** What a sensitive route asks of the session: presence proven recently, always or only once a factor exists. */
export type StepUpRule = 'always' | 'withFactor';

export type StepUpMethod = FactorMethod | 'password';

export interface Proof {
  password?: string | undefined;
  code?: string | undefined;
  /** The browser's AuthenticationResponseJSON, after authentication options were asked for. */
  passkey?: AuthenticationResponseJSON | undefined;
}

export function createStepUp(
  ctx: ServiceContext,
  deps: { mfa: MfaService; passkeys: PasskeyService; stepUpMaxAgeMs: number },
) {
  const { store, clock } = ctx;
  const { mfa, passkeys, stepUpMaxAgeMs } = deps;

  async function requireStepUp(user: AuthenticatedUser, rule: StepUpRule): Promise<void> {
    if (clock.nowMs() - user.steppedUpAtMs <= stepUpMaxAgeMs) return;
    const methods = await mfa.methods(user.userId);
    if (rule === 'withFactor' && methods.length === 0) return;
    const accepted: StepUpMethod[] = methods.length === 0 ? ['password'] : methods;
    throw new AppError(
      'STEP_UP_REQUIRED',
      `this operation needs presence proven in the last ${Math.round(stepUpMaxAgeMs / 1000)} seconds: POST /api/v1/auth/step-up`,
      { details: { methods: accepted } },
    );
  }

  async function stepUp(user: AuthenticatedUser, proof: Proof, limits: GuessLimits) {
    const methods = await mfa.methods(user.userId);
    const email = await emailOf(store.db, user.userId);
    const proven =
      methods.length > 0
        ? await proveWithFactor(user, proof, methods, (code) =>
            limits.code(email, () => mfa.useCode(user.userId, code)),
          )
        : await proveWithPassword(user, proof);
    if (!proven) {
      await limits.wrong(email);
      throw new AppError('INVALID_CREDENTIALS', wrongProof(methods, proof));
    }
    const nowMs = clock.nowMs();
    await store.db
      .updateTable('sessions')
      .set({ stepped_up_at_ms: BigInt(nowMs) })
      .where('id', '=', user.sessionId)
      .execute();
    return { steppedUpAt: isoFromMs(nowMs) };
  }

  /** A factor is active: a passkey or a code (TOTP or recovery code); a password is not enough. */
  async function proveWithFactor(
    user: AuthenticatedUser,
    proof: Proof,
    methods: FactorMethod[],
    judgeCode: (code: string) => Promise<boolean>,
  ): Promise<boolean> {
    // The answer to POST /auth/step-up/passkey-options: that session's challenge, taken once.
    if (proof.passkey !== undefined) return passkeys.verifyStepUp(user.userId, user.sessionId, proof.passkey);
    if (proof.code !== undefined) return judgeCode(proof.code);
    throw new AppError(
      'VALIDATION_ERROR',
      'a second factor is active: step up with code (TOTP or recovery code) or passkey',
      {
        details: { methods },
      },
    );
  }

  async function proveWithPassword(user: AuthenticatedUser, proof: Proof): Promise<boolean> {
    if (proof.password === undefined) throw new AppError('VALIDATION_ERROR', 'password is required');
    return passwordMatches(store.db, user.userId, proof.password);
  }

  return { requireStepUp, stepUp };
}

/** Why a step-up's proof was refused, in the terms of what was presented. */
function wrongProof(methods: FactorMethod[], proof: Proof): string {
  if (methods.length === 0) return 'the password is incorrect';
  return proof.passkey !== undefined
    ? 'the passkey was not accepted'
    : 'the code is wrong or was already used';
}

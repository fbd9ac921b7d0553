// Step-up (contract section 8): a sensitive request the server refuses with 403 STEP_UP_REQUIRED waits while the
// person proves presence again (one dialog for the whole app, StepUpProvider), then is sent again by the HTTP
// adapter (client.ts). The parts here are pure: reading the refusal, and one question at a time. Unit-tested.

export const STEP_UP_METHODS = ['password', 'totp', 'passkey', 'recovery_code'] as const;
export type StepUpMethod = (typeof STEP_UP_METHODS)[number];

/** Asks the person to prove presence with one of `methods`: true once they did, false when they declined. */
export type StepUpAsk = (methods: StepUpMethod[]) => Promise<boolean>;

const STEP_UP_PATH = /^\/api\/v1\/auth\/step-up(\/|$)/;

function isMethod(value: unknown): value is StepUpMethod {
  return typeof value === 'string' && (STEP_UP_METHODS as readonly string[]).includes(value);
}

/**
 * The methods a STEP_UP_REQUIRED answer offers (`error.methods`, unknown ones left out), or null when the answer
 * is anything else. An answer that names no method the dashboard knows offers the password.
 */
export function stepUpMethods(status: number, text: string): StepUpMethod[] | null {
  if (status !== 403) return null;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  if (typeof error !== 'object' || error === null) return null;
  const { code, methods } = error as { code?: unknown; methods?: unknown };
  if (code !== 'STEP_UP_REQUIRED') return null;
  const known = Array.isArray(methods) ? methods.filter(isMethod) : [];
  return known.length > 0 ? [...new Set(known)] : ['password'];
}

/** The step-up calls themselves are never held for a step-up (they are how one is done). */
export function isStepUpPath(path: string): boolean {
  return STEP_UP_PATH.test(path);
}

/**
 * One question at a time: requests refused while the dialog is open wait for the same answer instead of opening
 * a dialog each. Without anyone to ask (logged out, or before the app mounted its dialog) the answer is no.
 */
export class StepUpGate {
  private ask: StepUpAsk | null = null;
  private pending: Promise<boolean> | null = null;

  setAsk(ask: StepUpAsk | null) {
    this.ask = ask;
  }

  request(methods: StepUpMethod[]): Promise<boolean> {
    const ask = this.ask;
    if (ask === null) return Promise.resolve(false);
    if (this.pending === null) {
      this.pending = ask(methods)
        .catch(() => false)
        .finally(() => {
          this.pending = null;
        });
    }
    return this.pending;
  }
}

// Every time-dependent decision takes its "now" from a Clock so tests move time instead of sleeping.
export interface Clock {
  nowMs(): number;
}

export const systemClock: Clock = { nowMs: () => Date.now() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  private currentMs: number;
  constructor(startMs: number = Date.UTC(2026, 0, 1)) {
    this.currentMs = startMs;
  }
  nowMs(): number {
    return this.currentMs;
  }
  advanceMs(deltaMs: number): void {
    this.currentMs += deltaMs;
  }
  advanceSeconds(deltaSeconds: number): void {
    this.currentMs += deltaSeconds * 1000;
  }
  setMs(valueMs: number): void {
    this.currentMs = valueMs;
  }
}

export function isoFromMs(ms: bigint | number): string {
  return new Date(Number(ms)).toISOString();
}

/**
 * `work`'s answer, or a rejection once `timeoutMs` have passed: a reading that does not come in time is reported,
 * never waited for (the work itself is left to end on its own; its late failure is ignored).
 */
export function withinMs<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  work.catch(() => undefined);
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

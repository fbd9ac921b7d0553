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

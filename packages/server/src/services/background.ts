// Background duties: each runs in turn every `intervalMs`, one round at a time (a slow round is never overlapped
// by the next), failures logged and the round goes on. null turns them off: tests call the duties by hand.
import type { Logger } from 'pino';

export interface Background {
  stop(): Promise<void>;
}

/** Runs duties one after another every interval (never overlapping); stop() waits for a running round. */
export function startBackground(
  intervalMs: number | null,
  logger: Logger,
  duties: Record<string, () => Promise<unknown>>,
): Background {
  if (intervalMs === null) return { stop: async () => undefined };
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running !== null) return;
    running = (async () => {
      for (const [name, duty] of Object.entries(duties)) {
        await duty().catch((error: unknown) =>
          logger.error({ err: error }, `background duty failed: ${name}`),
        );
      }
    })().finally(() => {
      running = null;
    });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

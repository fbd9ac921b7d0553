// Starts the service: services, HTTP app, listening socket, and a graceful stop on SIGTERM/SIGINT that
// refuses new connections, lets in-flight requests finish, drains the ledger writer and closes the database.
import type { FastifyInstance } from 'fastify';
import { type DestinationStream, type Logger, pino } from 'pino';
import { buildApp } from './app/app.ts';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import { errorForLog, requestForLog } from './log-scrub.ts';
import { createServices, type Services } from './services/index.ts';

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  url: string;
  close(): Promise<void>;
}

export interface StartOptions {
  clock: Clock;
  /** Log level, or false for no logs (tests). */
  logLevel: string | false;
  postgresSchema?: string;
  /** Background duties' period; null turns them off (tests call them directly). */
  backgroundIntervalMs?: number | null;
  /** Where log lines go (tests read them); stdout by default. */
  logDestination?: DestinationStream;
}

/** Secrets never reach a log line, whatever object they travel in. */
export const LOG_REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.password',
  '*.token',
  '*.key',
  '*.jwt',
];

/** One logger for the HTTP layer and the services, with secrets redacted. */
export function createLogger(level: string | false, destination?: DestinationStream): Logger {
  if (level === false) return pino({ enabled: false });
  return pino(
    {
      level,
      redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' },
      serializers: { req: requestForLog, err: errorForLog },
    },
    destination,
  );
}

export async function createServer(config: Config, options: StartOptions): Promise<RunningServer> {
  const logger = createLogger(options.logLevel, options.logDestination);
  const services = await createServices(config, {
    clock: options.clock,
    logger,
    ...(options.postgresSchema === undefined ? {} : { postgresSchema: options.postgresSchema }),
    ...(options.backgroundIntervalMs === undefined
      ? {}
      : { backgroundIntervalMs: options.backgroundIntervalMs }),
  });
  const app = await buildApp(services, { logger }).catch(async (error: unknown) => {
    await services.close().catch(() => undefined);
    throw error;
  });
  app.addHook('onClose', async () => services.close());
  return {
    app,
    services,
    url: '',
    close: () => app.close(),
  };
}

export async function startServer(config: Config, options: StartOptions): Promise<RunningServer> {
  const server = await createServer(config, options);
  const url = await server.app.listen({ port: config.port, host: config.host });
  return { ...server, url };
}

/**
 * SIGTERM: drain, then stop gracefully — /health/ready answers 503 at once while every request (in flight or
 * new) is still served for `drainMs`, so a load balancer moves traffic elsewhere before the socket closes; then
 * in-flight requests finish, the ledger writer drains and the database closes. SIGINT (Ctrl-C) skips the drain.
 * A second signal, or a shutdown stuck past the deadline, exits at once.
 */
export function closeOnSignals(
  server: RunningServer,
  timing: { drainMs: number; shutdownDeadlineMs: number },
): void {
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) process.exit(1);
    closing = true;
    const drainMs = signal === 'SIGTERM' ? timing.drainMs : 0;
    server.services.lifecycle.draining = true;
    server.app.log.info({ signal, drainMs }, 'shutting down: ready says 503, still serving while draining');
    const deadline = setTimeout(() => {
      server.app.log.error('shutdown deadline passed; exiting');
      process.exit(1);
    }, drainMs + timing.shutdownDeadlineMs);
    deadline.unref();
    setTimeout(() => {
      server.app.log.info('drained: closing, finishing in-flight requests');
      server.close().then(
        () => process.exit(0),
        (error: unknown) => {
          server.app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    }, drainMs);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

import type { Logger } from 'pino';
import { flushLogs } from './logging/logger';

/** What every service's start function returns. */
export interface RunningService {
  name: string;
  /** The bound port (gRPC, or HTTP for the gateway). */
  port: number;
  /** Graceful: stop taking work, finish what is in flight, flush producers, close stores. */
  stop(): Promise<void>;
}

/**
 * Stops gracefully on SIGTERM/SIGINT (Kubernetes sends SIGTERM, then SIGKILL after the grace
 * period), and exits non-zero if stopping takes longer than timeoutMs.
 */
export function stopOnSignals(logger: Logger, stop: () => Promise<void>, timeoutMs = 25_000): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown timed out');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/**
 * An error nothing caught ends the process, as Node's default does, but is written by the
 * process's logger first: through the same redaction as every other line (Node's default prints
 * the stack, and whatever user text the message carries, to stderr unscrubbed).
 */
export function logCrashes(logger: Logger): void {
  const crash = (what: string) => (error: unknown) => {
    try {
      logger.fatal({ err: error }, `${what}: the process exits`);
    } finally {
      flushLogs();
      process.exit(1);
    }
  };
  process.on('uncaughtException', crash('uncaught exception'));
  process.on('unhandledRejection', crash('unhandled promise rejection'));
}

/**
 * Entry-point wrapper: logs crashes through the logger (logCrashes), then runs; logs a startup
 * failure (e.g. invalid configuration) and exits 1.
 */
export function main(logger: Logger, run: () => Promise<void>): void {
  logCrashes(logger);
  run().catch((error: unknown) => {
    logger.fatal({ err: error }, error instanceof Error ? error.message : 'startup failed');
    process.exit(1);
  });
}

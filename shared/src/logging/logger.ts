import pino, { type DestinationStream, type Logger } from 'pino';
import { REDACTED_PATHS, safeError, scrubCredentials } from './redaction';

export type { Logger } from 'pino';
export { scrubCredentials, safeError } from './redaction';

/**
 * The one logger of every service. `destination` (default stdout) lets tests capture exactly what
 * would be written.
 */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name: service,
    level,
    base: { service },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: { err: safeError, error: safeError },
    hooks: { streamWrite: scrubCredentials },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}

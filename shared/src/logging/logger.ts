import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

/** Paths never written to logs: keys, secrets and signatures wherever they appear. */
const REDACT = [
  'authorization',
  '*.authorization',
  'req.headers.authorization',
  'headers.authorization',
  'apiKey',
  '*.apiKey',
  'secret',
  '*.secret',
  'signingSecret',
  '*.signingSecret',
  'password',
  '*.password',
  '*["webhook-signature"]',
  '*["x-service-signature"]',
];

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    redact: { paths: REDACT, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}

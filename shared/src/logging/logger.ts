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

/**
 * One asynchronous stdout writer per process: a log line costs a buffer append, not a blocking
 * write on the request path (lines written while one write is in flight go out together). It is
 * flushed synchronously when the process exits, so nothing logged before an exit is lost.
 */
let stdout: ReturnType<typeof pino.destination> | undefined;

function processDestination(): ReturnType<typeof pino.destination> {
  if (!stdout) {
    const destination = pino.destination({ dest: 1, sync: false });
    process.once('exit', () => flushLogs());
    stdout = destination;
  }
  return stdout;
}

/** Writes out buffered log lines now (before process.exit). */
export function flushLogs(): void {
  try {
    stdout?.flushSync();
  } catch {
    // a write still in flight finishes on its own; nothing else can be done at exit
  }
}

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino(
    {
      name: service,
      level,
      base: { service },
      redact: { paths: REDACT, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    processDestination(),
  );
}

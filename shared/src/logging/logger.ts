import pino, { type DestinationStream, type Logger } from 'pino';
import { redactFields, safeError, scrubCredentials } from './redaction';
import { isEmptyLogFields, traceLogFields } from '../tracing/tracing';

export type { Logger } from 'pino';
export { scrubCredentials, safeError } from './redaction';

/**
 * One asynchronous stdout writer per process: a log line costs a buffer append, not a blocking
 * write on the request path. Lines go out in writes of at least LOG_WRITE_BYTES, or every
 * LOG_FLUSH_MS when traffic is light, not one write (a syscall) per line. It is flushed
 * synchronously when the process exits, so nothing logged before an exit is lost.
 */
const LOG_WRITE_BYTES = 4096;
const LOG_FLUSH_MS = 100;

let stdout: ReturnType<typeof pino.destination> | undefined;

function processDestination(): ReturnType<typeof pino.destination> {
  if (!stdout) {
    const destination = pino.destination({
      dest: 1,
      sync: false,
      minLength: LOG_WRITE_BYTES,
      periodicFlush: LOG_FLUSH_MS,
    });
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

/**
 * The one logger of every service. `destination` (default: the process's asynchronous stdout)
 * lets tests capture exactly what would be written.
 */
export function createLogger(
  service: string,
  level = process.env.LOG_LEVEL ?? 'info',
  destination?: DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    name: service,
    level,
    base: { service },
    formatters: { log: redactFields },
    serializers: { err: safeError, error: safeError },
    hooks: { streamWrite: scrubCredentials },
    timestamp: pino.stdTimeFunctions.isoTime,
    // trace_id and span_id of the active span while tracing is on; nothing (and no copy) while off.
    mixin: traceLogFields,
    mixinMergeStrategy: (mergeObject, mixinObject) =>
      isEmptyLogFields(mixinObject) ? mergeObject : Object.assign(mixinObject, mergeObject),
  };
  return pino(options, destination ?? processDestination());
}

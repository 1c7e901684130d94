import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@switchyard/shared';

export interface CapturedLog {
  logger: Logger;
  /** Everything written so far, as it would have gone to stdout. */
  text(): string;
}

/** The production logger (same redaction and serializers) at trace level, writing into memory. */
export function captureLog(service = 'embedded'): CapturedLog {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger(service, 'trace', sink), text: () => chunks.join('') };
}

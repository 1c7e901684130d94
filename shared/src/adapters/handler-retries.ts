import { outageOf, type DependencyName } from '../resilience/dependencies';

/** The longest wait between retries of a handler that fails on an outage: it resumes within about this long of the dependency's return. */
export const OUTAGE_RETRY_MAX_MS = 1000;

/**
 * Thrown when the owner of the work (a consumer, a service) stopped while the work was waiting
 * out an outage: it was not done, and must be left to be taken up again (a consumer's offset
 * does not move; a request stays processing under its lease).
 */
export class RetriesStoppedError extends Error {
  constructor() {
    super('stopped while waiting for a dependency to come back');
    this.name = 'RetriesStoppedError';
  }
}

export interface HandlerFailure {
  /** The attempt counted against maxAttempts (outage retries are not counted). */
  attempt: number;
  error: string;
  /** Set when the failure was an outage of this dependency. */
  dependency?: DependencyName;
}

export interface HandlerRetryOptions {
  maxAttempts: number;
  /** The first retry's delay; it doubles on each retry. */
  retryBaseMs: number;
  /** Whether the owner (consumer, service) still runs; an outage is waited out only while it does. */
  running: () => boolean;
  /** Before each retry, after its delay (the group heartbeat). */
  beforeRetry?: () => Promise<void>;
  onFailure: (failure: HandlerFailure) => void;
}

/**
 * Runs work that must not be dropped (an event handler, publishing a finished request's outcome)
 * until it succeeds. A failure caused by a dependency outage (MongoDB, Redis or Kafka
 * unreachable: outageOf) says nothing about the work, so it uses up no attempt: it is retried
 * for as long as the outage lasts, as at-least-once delivery requires (dead-lettering an event,
 * or giving up on a result, would drop it). Any other failure uses one of maxAttempts. Returns
 * undefined once the work succeeded, else the last error; throws RetriesStoppedError if the
 * owner stops during an outage.
 */
export async function runWithRetries(
  work: () => Promise<void>,
  options: HandlerRetryOptions,
): Promise<string | undefined> {
  let attempt = 1;
  let outageRetries = 0;
  for (;;) {
    let delayMs: number;
    try {
      await work();
      return undefined;
    } catch (error) {
      const text = errorText(error);
      const dependency = outageOf(error);
      options.onFailure({ attempt, error: text, ...(dependency && { dependency }) });
      if (dependency !== undefined) {
        if (!options.running()) throw new RetriesStoppedError();
        delayMs = Math.min(options.retryBaseMs * 2 ** outageRetries++, OUTAGE_RETRY_MAX_MS);
      } else {
        if (attempt >= options.maxAttempts) return text;
        delayMs = options.retryBaseMs * 2 ** (attempt++ - 1);
      }
    }
    await sleep(delayMs);
    await options.beforeRetry?.();
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

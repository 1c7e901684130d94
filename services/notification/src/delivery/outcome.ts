import type { IncomingHttpHeaders } from 'node:http';

/** What an attempt means for the delivery. */
export type AttemptOutcome =
  | { kind: 'success' }
  | { kind: 'gone' }
  | { kind: 'failure'; reason: string; error: string; retryAfterMs?: number };

/** Retry-After as milliseconds from now: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** 2xx succeeds; 410 disables the webhook; redirects are not followed and fail; 429/503 may set Retry-After. */
export function classifyResponse(statusCode: number, headers: IncomingHttpHeaders): AttemptOutcome {
  if (statusCode >= 200 && statusCode < 300) return { kind: 'success' };
  if (statusCode === 410) return { kind: 'gone' };
  if (statusCode >= 300 && statusCode < 400) {
    return { kind: 'failure', reason: 'redirect', error: `redirect (${statusCode}) not followed` };
  }
  const failure: AttemptOutcome = {
    kind: 'failure',
    reason: `http_${Math.floor(statusCode / 100)}xx`,
    error: `HTTP ${statusCode}`,
  };
  if (statusCode === 429 || statusCode === 503) {
    const header = headers['retry-after'];
    failure.retryAfterMs = parseRetryAfter(Array.isArray(header) ? header[0] : header);
  }
  return failure;
}

/** A schedule delay with +-20% jitter, so retries of many deliveries do not arrive in lockstep. */
export function withJitter(delayMs: number, random = Math.random): number {
  return Math.round(delayMs * (0.8 + 0.4 * random()));
}

/**
 * When the next attempt is due after attemptsMade failed attempts, or undefined when the
 * schedule is exhausted. A Retry-After pushes the time later, never earlier.
 */
export function nextAttemptTime(
  schedule: number[],
  attemptsMade: number,
  now: number,
  retryAfterMs?: number,
): number | undefined {
  if (attemptsMade >= schedule.length) return undefined;
  const scheduled = now + withJitter(schedule[attemptsMade]!);
  return retryAfterMs === undefined ? scheduled : Math.max(scheduled, now + retryAfterMs);
}

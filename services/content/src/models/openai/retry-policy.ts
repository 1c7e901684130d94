/** When and how long to wait before retrying a failed provider request. */

/** First backoff window; it doubles per retry (full jitter picks a wait inside it). */
export const BACKOFF_BASE_MS = 250;
export const BACKOFF_CAP_MS = 8_000;
/** A provider asking for a longer pause than this is waited on for this long only. */
export const RETRY_AFTER_CAP_MS = 30_000;

/** 429, 5xx and connection failures (no status) are worth another try; other 4xx are not. */
export function isRetryableStatus(status: number | undefined): boolean {
  return status === undefined || status === 429 || status >= 500;
}

/** Exponential backoff with full jitter: uniform in [0, min(cap, base * 2^retry)). */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  const window = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retry);
  return Math.floor(random() * window);
}

/**
 * The pause a provider asked for, from `retry-after-ms`, or `retry-after` in seconds or as an
 * HTTP date; capped. undefined when absent or unreadable.
 */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const millis = headers?.get('retry-after-ms');
  if (millis && /^\d+(\.\d+)?$/.test(millis.trim()))
    return Math.min(RETRY_AFTER_CAP_MS, Number(millis));
  const value = headers?.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.min(RETRY_AFTER_CAP_MS, Number(value) * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.min(RETRY_AFTER_CAP_MS, Math.max(0, date - now));
}

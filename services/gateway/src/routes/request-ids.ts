import type { CallContext } from '@switchyard/shared';

/**
 * The request id a call was billed under: this request's, or the first attempt's when the service
 * answered a retry (same Idempotency-Key) from its kept answer, so usage reconciles per request id.
 */
export function billedRequestId(response: { request_id: string }, call: CallContext): string {
  return response.request_id || call.requestId;
}

import type { ApiResponse } from '../support/http';

/** One HTTP attempt of a logical request. */
export interface Attempt {
  /** 0: no HTTP answer (connection refused or reset). */
  status: number;
  sentAt: number;
  answeredAt: number;
  phase: string;
  code?: string;
  /** The Retry-After header, when the answer carried one. */
  retryAfter?: string;
}

/** A logical request: one body, one Idempotency-Key, as many attempts as it took. */
export interface LogicalRequest {
  kind: string;
  key: string;
  attempts: Attempt[];
  /** The final answer (2xx, or a 4xx that is final), undefined if it never got one. */
  final?: ApiResponse;
}

const RETRY_STATUSES = new Set([0, 409, 429, 500, 502, 503, 504]);

/**
 * What a well-behaved client does: the same request with the same Idempotency-Key until it gets a
 * final answer, waiting as Retry-After says (250 ms when it says nothing), for at most budgetMs.
 */
export async function sendWithRetries(
  request: LogicalRequest,
  send: () => Promise<ApiResponse>,
  phase: () => string,
  budgetMs = 60_000,
): Promise<LogicalRequest> {
  const deadline = Date.now() + budgetMs;
  for (;;) {
    const sentAt = Date.now();
    let response: ApiResponse | undefined;
    try {
      response = await send();
    } catch {
      response = undefined;
    }
    const status = response?.status ?? 0;
    request.attempts.push({
      status,
      sentAt,
      answeredAt: Date.now(),
      phase: phase(),
      code: (response?.body as { error?: { code?: string } } | undefined)?.error?.code,
      retryAfter: response?.headers.get('retry-after') ?? undefined,
    });
    if (!RETRY_STATUSES.has(status)) {
      request.final = response;
      return request;
    }
    if (Date.now() >= deadline) return request;
    const retryAfter = Number(response?.headers.get('retry-after'));
    const waitMs = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 250;
    await new Promise((resolve) => setTimeout(resolve, Math.min(waitMs, 2000)));
  }
}

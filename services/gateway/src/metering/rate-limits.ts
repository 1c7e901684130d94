import {
  AppError,
  type RateLimitDecision,
  type RateLimiter,
  type WindowHit,
} from '@switchyard/shared';

const MINUTE_MS = 60_000;

/** Retry-After and RateLimit-Reset are whole seconds, rounded up. */
export function secondsOf(ms: number): number {
  return Math.max(0, Math.ceil(ms / 1000));
}

/** The RateLimit-* headers (IETF draft) for a request-limit decision. */
export function rateLimitHeaders(
  limit: number,
  decision: RateLimitDecision,
): Record<string, string> {
  return {
    'RateLimit-Limit': String(limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(secondsOf(decision.resetMs)),
  };
}

export function rateLimited(what: string, limit: number, decision: RateLimitDecision): AppError {
  return new AppError(
    'rate_limited',
    `${what} rate limit of this API key exceeded (${limit} per minute)`,
    [{ reason: `${what} per minute`, limit, remaining: decision.remaining }],
    Math.max(1, secondsOf(decision.resetMs)),
  );
}

/**
 * Per-key sliding one-minute windows, global across replicas through shared state. Their names
 * carry the organization as a hash tag, as the quota's and budgets' counters do, so that one
 * script may count a call on all of them (one Redis Cluster slot).
 */
export class KeyRateLimits {
  constructor(private readonly limiter: RateLimiter) {}

  /** A request alone (a route not billed, or a billed one answered without a call). */
  hitRequest(
    organization: string,
    keyId: string,
    requestsPerMinute: number,
  ): Promise<RateLimitDecision> {
    const { key, windowMs, limit, weight } = this.requestHit(
      organization,
      keyId,
      requestsPerMinute,
    );
    return this.limiter.slidingWindowHit(key, windowMs, limit, weight);
  }

  requestHit(organization: string, keyId: string, requestsPerMinute: number): WindowHit {
    return {
      key: `rl:req:{${organization}}:${keyId}`,
      windowMs: MINUTE_MS,
      limit: requestsPerMinute,
      weight: 1,
    };
  }

  tokensHit(organization: string, keyId: string, tokensPerMinute: number, tokens: number) {
    return {
      key: `rl:tok:{${organization}}:${keyId}`,
      windowMs: MINUTE_MS,
      limit: tokensPerMinute,
      weight: Math.max(1, tokens),
    };
  }
}

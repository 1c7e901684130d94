import { AppError, type RateLimitDecision, type RateLimiter } from '@switchyard/shared';

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

/** Per-key sliding one-minute windows, global across replicas through shared state. */
export class KeyRateLimits {
  constructor(private readonly limiter: RateLimiter) {}

  hitRequest(keyId: string, requestsPerMinute: number): Promise<RateLimitDecision> {
    return this.limiter.slidingWindowHit(`rl:req:${keyId}`, MINUTE_MS, requestsPerMinute, 1);
  }

  hitTokens(keyId: string, tokensPerMinute: number, tokens: number): Promise<RateLimitDecision> {
    return this.limiter.slidingWindowHit(
      `rl:tok:${keyId}`,
      MINUTE_MS,
      tokensPerMinute,
      Math.max(1, tokens),
    );
  }
}

import { createHash } from 'node:crypto';

/**
 * The answers of finished calls, kept per (organization, key) for the idempotency window: a retry
 * of a call whose answer was lost on the way back (the caller saw UNAVAILABLE or a deadline, or
 * the gateway died) gets the stored answer instead of running, and being billed, again. The key is
 * the caller's Idempotency-Key, or the request id without one, prefixed with the method name.
 */
export interface AnswerStore {
  /** The stored answer, or undefined when none is kept (never stored, or its window passed). */
  get(organization: string, key: string): Promise<string | undefined>;
  /**
   * Keeps an answer for ttlSeconds unless one is already kept; returns the answer that is kept
   * (the first one wins, so two racing attempts both return the same).
   */
  put(organization: string, key: string, answer: string, ttlSeconds: number): Promise<string>;
}

/** The answer store in memory: one process (tests, embedded mode). */
export class InMemoryAnswerStore implements AnswerStore {
  private readonly answers = new Map<string, { answer: string; expiresAt: number }>();

  async get(organization: string, key: string): Promise<string | undefined> {
    return this.kept(answerId(organization, key));
  }

  async put(
    organization: string,
    key: string,
    answer: string,
    ttlSeconds: number,
  ): Promise<string> {
    const kept = this.kept(answerId(organization, key));
    if (kept !== undefined) return kept;
    this.answers.set(answerId(organization, key), {
      answer,
      expiresAt: Date.now() + ttlSeconds * 1000,
    });
    this.dropExpired();
    return answer;
  }

  private kept(name: string): string | undefined {
    const kept = this.answers.get(name);
    if (kept && kept.expiresAt > Date.now()) return kept.answer;
    this.answers.delete(name);
    return undefined;
  }

  /** Bounded by what one window holds: expired answers go when new ones come. */
  private dropExpired(): void {
    const now = Date.now();
    for (const [name, kept] of this.answers) {
      if (kept.expiresAt > now) break; // insertion order is expiry order for one TTL
      this.answers.delete(name);
    }
  }
}

/** One id per (organization, key): a fixed-length digest, so any key fits an index entry. */
export function answerId(organization: string, key: string): string {
  return createHash('sha256').update(`${organization}\u0000${key}`, 'utf8').digest('base64url');
}

/**
 * A deterministic usage event id for a call: the same (organization, key) always gives the same
 * id, so a call run twice (its answer was lost before it could be kept) is counted once by the
 * ledger, which skips event ids it has processed.
 */
export function usageEventId(organization: string, key: string): string {
  return `evt_usage_${answerId(organization, key)}`;
}

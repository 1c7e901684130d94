import { BoundedMap } from '../memory/bounded-map';
import { hash } from 'node:crypto';

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

/**
 * Answers one process keeps at most in memory (embedded mode: one per keyed billable call, for the
 * idempotency window); beyond it the oldest goes first, and a retry of its call runs again (its
 * usage event id is the same, so the ledger still counts it once).
 */
export const IN_MEMORY_ANSWERS = 10_000;

/** The answer store in memory: one process (tests, embedded mode), bounded (IN_MEMORY_ANSWERS). */
export class InMemoryAnswerStore implements AnswerStore {
  private readonly answers: BoundedMap<string>;

  constructor(maxAnswers = IN_MEMORY_ANSWERS) {
    this.answers = new BoundedMap(maxAnswers);
  }

  async get(organization: string, key: string): Promise<string | undefined> {
    return this.answers.get(answerId(organization, key));
  }

  async put(
    organization: string,
    key: string,
    answer: string,
    ttlSeconds: number,
  ): Promise<string> {
    const name = answerId(organization, key);
    const kept = this.answers.get(name);
    if (kept !== undefined) return kept;
    this.answers.set(name, answer, Date.now() + ttlSeconds * 1000);
    return answer;
  }
}

/** One id per (organization, key): a fixed-length digest, so any key fits an index entry. */
export function answerId(organization: string, key: string): string {
  return hash('sha256', `${organization}\u0000${key}`, 'base64url');
}

/**
 * A deterministic usage event id for a call: the same (organization, key) always gives the same
 * id, so a call run twice (its answer was lost before it could be kept) is counted once by the
 * ledger, which skips event ids it has processed.
 */
export function usageEventId(organization: string, key: string): string {
  return `evt_usage_${answerId(organization, key)}`;
}

import type { Spent } from '../../routes/types';

/** One stored answer: what the model answered, in the route's canonical form. */
export interface CachedAnswer {
  /** When it was stored (epoch ms, the gateway's clock): a request's max-age is measured from it. */
  storedAt: number;
  /** The answer as JSON text (a chat.completion, a generate response without its request_id). */
  answer: string;
  /** What the call that made it spent: what a hit saves (or is billed, if its organization bills hits). */
  spent: Spent;
}

/**
 * Answers by request key (a hash of the organization and the normalised request). Lookups and
 * writes never fail a call: a backend that cannot answer is a miss, a write it cannot take is
 * dropped (the implementations log it).
 */
export interface ResponseCacheStore {
  get(key: string): Promise<CachedAnswer | undefined>;
  /** Kept for at most ttlSeconds (a bounded store may drop it earlier to make room). */
  set(key: string, value: CachedAnswer, ttlSeconds: number): Promise<void>;
  close(): Promise<void>;
}

/** What a model call spent: what a cached answer's hit is billed, when its organization bills hits. */
export interface Spent {
  model: string;
  tokensInput: number;
  tokensOutput: number;
  cost: number;
}

/** One stored answer: what the model answered, in the route's canonical form. */
export interface CachedAnswer {
  /** When it was stored (epoch ms, the gateway's clock): a request's max-age is measured from it. */
  storedAt: number;
  /** The answer as JSON text (a chat.completion, a generate response without its request_id). */
  answer: string;
  /** What the call that made it spent: what a hit saves (or is billed, if its organization bills hits). */
  spent: Spent;
}

/** The vector of a stored request's text, and the key its answer is stored under. */
export interface RequestVector {
  key: string;
  vector: Float32Array;
}

/** Vectors kept per partition (equal requests but for their text): the newest this many. */
export const VECTORS_PER_PARTITION = 100;

/**
 * Answers by request key (a hash of the organization and the normalised request). Lookups and
 * writes never fail a call: a backend that cannot answer is a miss, a write it cannot take is
 * dropped (the implementations log it).
 */
export interface ResponseCacheStore {
  get(key: string): Promise<CachedAnswer | undefined>;
  /** Kept for at most ttlSeconds (a bounded store may drop it earlier to make room). */
  set(key: string, value: CachedAnswer, ttlSeconds: number): Promise<void>;
  /** Semantic form: adds a request's vector to its partition (the newest VECTORS_PER_PARTITION kept). */
  addVector(partition: string, entry: RequestVector, ttlSeconds: number): Promise<void>;
  /** The partition's vectors, newest first (some answers may be gone: the caller looks each up). */
  vectors(partition: string): Promise<RequestVector[]>;
  close(): Promise<void>;
}

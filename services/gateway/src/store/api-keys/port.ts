import { AppError } from '@switchyard/shared';

/**
 * A limit on what calls use in a period, reset when the period ends: tokens (input + output),
 * cost (in the model prices' currency), or both.
 */
export interface Budget {
  tokens?: number;
  cost?: number;
  /** A UTC day, an ISO week (from Monday, UTC) or a UTC month. */
  period: 'day' | 'week' | 'month';
}

/** A key's response cache: its calls' answers are kept and replayed to equal requests. */
export interface KeyCache {
  /** How long an answer is replayed (a request's Cache-Control max-age overrides it). */
  maxAgeSeconds: number;
  /** The semantic form: a request this similar (cosine, 0..1) to a stored one gets its answer. */
  semanticThreshold?: number;
}

/** What a key may do beyond its organization's limits; every field absent means no restriction. */
export interface KeyScope {
  /** Model ids or aliases the key may call. */
  models?: string[];
  /** Paths the key may call ("/v1/*": `*` matches any characters). */
  routes?: string[];
  /** From this instant on the key is refused with 401 key_expired. */
  expiresAt?: string;
  /** The team (its id) the key belongs to: the team's budget applies to its calls too. */
  teamId?: string;
  /** The key's own budget. */
  budget?: Budget;
  /** A budget for each end user of the key (`user` on /v1, `user_id` on the assistants). */
  endUserBudget?: Budget;
  /** Answers of this key's calls are cached (off when absent; a request may still ask). */
  cache?: KeyCache;
}

export const KEY_SCOPE_FIELDS = [
  'models',
  'routes',
  'expiresAt',
  'teamId',
  'budget',
  'endUserBudget',
  'cache',
] as const satisfies ReadonlyArray<keyof KeyScope>;

/** A change to a key: a field given is set, null removes it. */
export type KeyChanges = { name?: string } & {
  [F in keyof KeyScope]?: KeyScope[F] | null;
};

/** The record with the changes applied (null fields removed). */
export function applyKeyChanges(record: ApiKeyRecord, changes: KeyChanges): ApiKeyRecord {
  const next: Record<string, unknown> = { ...record };
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    if (value === null) delete next[field];
    else next[field] = value;
  }
  return next as unknown as ApiKeyRecord;
}

/** What the gateway knows about a key; the key itself is never stored. */
export interface ApiKeyRecord extends KeyScope {
  keyId: string;
  organization: string;
  /** A label chosen by the admin (e.g. "ci"); empty when none. */
  name: string;
  /** Hex SHA-256 of the full key. */
  hash: string;
  createdAt: string;
  /** From this instant on the key is refused; may lie in the future (rotation grace period). */
  revokedAt?: string;
}

/** Async so the MongoDB store drops in. Hash and key id are unique. */
export interface ApiKeyStore {
  /** Throws AppError conflict when the hash or key id exists. */
  insert(record: ApiKeyRecord): Promise<void>;
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  findById(keyId: string): Promise<ApiKeyRecord | undefined>;
  listByOrganization(organization: string): Promise<ApiKeyRecord[]>;
  /**
   * Sets revokedAt unless the key is already revoked at or before `at` (a revocation is never
   * postponed). Returns the record afterwards, undefined for an unknown key id.
   */
  revoke(keyId: string, at: string): Promise<ApiKeyRecord | undefined>;
  /** Applies the changes (name, scopes, budgets); the record afterwards, undefined for an unknown key id. */
  update(keyId: string, changes: KeyChanges): Promise<ApiKeyRecord | undefined>;
}

/** The earlier of the stored and the requested revocation instant. */
export function earlierRevocation(current: string | undefined, requested: string): string {
  return current && Date.parse(current) <= Date.parse(requested) ? current : requested;
}

export function keyExists(): AppError {
  return new AppError('conflict', 'an API key with this id or hash exists');
}

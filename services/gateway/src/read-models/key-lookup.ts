import { outageOf } from '@switchyard/shared';
import { hashApiKey } from '../auth/api-keys';
import type { ApiKeyRecord, ApiKeyStore } from '../store';
import type { Change, ReadModel } from './read-model';

/** Bounds memory when callers try many unknown keys. */
const MAX_ENTRIES = 10_000;

interface Cached {
  record: ApiKeyRecord | undefined;
  expiresAt: number;
}

/**
 * Key lookups by hash with a short per-replica cache: the store is read at most once per TTL per
 * key, and a revocation made on any replica is seen here within the TTL (0 = no cache).
 * Looking up by hash makes the comparison constant-time by construction: no key is ever
 * compared character by character.
 */
export class KeyLookup implements ReadModel {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly store: ApiKeyStore,
    private readonly ttlMs: number,
  ) {}

  async find(key: string): Promise<ApiKeyRecord | undefined> {
    const hash = hashApiKey(key);
    const now = Date.now();
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAt > now) return cached.record;
    let record: ApiKeyRecord | undefined;
    try {
      record = await this.store.findByHash(hash);
    } catch (error) {
      // The key store unreachable: the last answer for this key serves until it is back, so
      // calls that need nothing else keep working (no key can be revoked meanwhile either).
      if (cached && outageOf(error)) return cached.record;
      throw error;
    }
    if (this.ttlMs > 0) this.remember(hash, { record, expiresAt: now + this.ttlMs });
    return record;
  }

  /** Forgets a key at once (a revocation made by this replica). */
  forget(keyId: string): void {
    for (const [hash, cached] of this.cache)
      if (cached.record?.keyId === keyId) this.cache.delete(hash);
  }

  /** Forgets every key of an organization whose keys changed (on another replica). */
  changed(organization: string, change: Change): void {
    if (change !== 'keys') return;
    for (const [hash, cached] of this.cache)
      if (cached.record?.organization === organization) this.cache.delete(hash);
  }

  private remember(hash: string, entry: Cached): void {
    this.cache.delete(hash);
    if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(hash, entry);
  }
}

import { createHash, randomBytes } from 'node:crypto';
import { AppError, newId } from '@switchyard/shared';

/** What the gateway knows about a key; the key itself is never stored. */
export interface ApiKeyRecord {
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
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateApiKey(): string {
  return `sk_${randomBytes(32).toString('base64url')}`;
}

/** A key is usable until its revocation instant. */
export function isActive(record: ApiKeyRecord, now = Date.now()): boolean {
  return !record.revokedAt || Date.parse(record.revokedAt) > now;
}

/** The earlier of the stored and the requested revocation instant. */
export function earlierRevocation(current: string | undefined, requested: string): string {
  return current && Date.parse(current) <= Date.parse(requested) ? current : requested;
}

export function keyExists(): AppError {
  return new AppError('conflict', 'an API key with this id or hash exists');
}

/** Stores an existing key (e.g. DEV_API_KEY) by its hash; the returned record never holds the key. */
export async function registerApiKey(
  store: ApiKeyStore,
  key: string,
  organization: string,
  name = '',
): Promise<ApiKeyRecord> {
  const record: ApiKeyRecord = {
    keyId: newId('key'),
    organization,
    name,
    hash: hashApiKey(key),
    createdAt: new Date().toISOString(),
  };
  await store.insert(record);
  return record;
}

/** Issues a new key: the returned key is shown once, only its hash is kept. */
export async function issueApiKey(
  store: ApiKeyStore,
  organization: string,
  name = '',
): Promise<{ key: string; record: ApiKeyRecord }> {
  const key = generateApiKey();
  return { key, record: await registerApiKey(store, key, organization, name) };
}

export class InMemoryApiKeyStore implements ApiKeyStore {
  private readonly byHash = new Map<string, ApiKeyRecord>();
  private readonly byId = new Map<string, ApiKeyRecord>();

  async insert(record: ApiKeyRecord): Promise<void> {
    if (this.byHash.has(record.hash) || this.byId.has(record.keyId)) throw keyExists();
    const stored = { ...record };
    this.byHash.set(stored.hash, stored);
    this.byId.set(stored.keyId, stored);
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const record = this.byHash.get(hash);
    return record && { ...record };
  }

  async findById(keyId: string): Promise<ApiKeyRecord | undefined> {
    const record = this.byId.get(keyId);
    return record && { ...record };
  }

  async listByOrganization(organization: string): Promise<ApiKeyRecord[]> {
    return [...this.byId.values()]
      .filter((r) => r.organization === organization)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .map((r) => ({ ...r }));
  }

  async revoke(keyId: string, at: string): Promise<ApiKeyRecord | undefined> {
    const record = this.byId.get(keyId);
    if (!record) return undefined;
    record.revokedAt = earlierRevocation(record.revokedAt, at);
    return { ...record };
  }

  /** Test convenience: issue a key for an organization. */
  issue(organization: string, name = ''): Promise<{ key: string; record: ApiKeyRecord }> {
    return issueApiKey(this, organization, name);
  }
}

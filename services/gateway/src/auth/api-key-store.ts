import { createHash, randomBytes } from 'node:crypto';
import { newId } from '@switchyard/shared';

/** What the gateway knows about a key; the key itself is never stored. */
export interface ApiKeyRecord {
  keyId: string;
  organization: string;
  /** Hex SHA-256 of the full key. */
  hash: string;
  createdAt: string;
  revokedAt?: string;
}

/** Async so a database-backed store can replace the in-memory one. */
export interface ApiKeyStore {
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateApiKey(): string {
  return `sk_${randomBytes(32).toString('base64url')}`;
}

export class InMemoryApiKeyStore implements ApiKeyStore {
  private readonly byHash = new Map<string, ApiKeyRecord>();

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    return this.byHash.get(hash);
  }

  /** Issues a new key; the returned key is shown once and only its hash is kept. */
  async issue(organization: string): Promise<{ key: string; record: ApiKeyRecord }> {
    const key = generateApiKey();
    return { key, record: await this.register(key, organization) };
  }

  /** Stores an existing key (e.g. DEV_API_KEY from the environment) by its hash. */
  async register(key: string, organization: string): Promise<ApiKeyRecord> {
    const record: ApiKeyRecord = {
      keyId: newId('key'),
      organization,
      hash: hashApiKey(key),
      createdAt: new Date().toISOString(),
    };
    this.byHash.set(record.hash, record);
    return record;
  }

  async revoke(keyId: string): Promise<boolean> {
    for (const record of this.byHash.values()) {
      if (record.keyId === keyId && !record.revokedAt) {
        record.revokedAt = new Date().toISOString();
        return true;
      }
    }
    return false;
  }
}

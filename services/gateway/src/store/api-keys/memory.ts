import {
  applyKeyChanges,
  earlierRevocation,
  keyExists,
  type ApiKeyRecord,
  type ApiKeyStore,
  type KeyChanges,
} from './port';

export class InMemoryApiKeyStore implements ApiKeyStore {
  private readonly byHash = new Map<string, ApiKeyRecord>();
  private readonly byId = new Map<string, ApiKeyRecord>();

  async insert(record: ApiKeyRecord): Promise<void> {
    if (this.byHash.has(record.hash) || this.byId.has(record.keyId)) throw keyExists();
    const stored = structuredClone(record);
    this.byHash.set(stored.hash, stored);
    this.byId.set(stored.keyId, stored);
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const record = this.byHash.get(hash);
    return record && structuredClone(record);
  }

  async findById(keyId: string): Promise<ApiKeyRecord | undefined> {
    const record = this.byId.get(keyId);
    return record && structuredClone(record);
  }

  async listByOrganization(organization: string): Promise<ApiKeyRecord[]> {
    return [...this.byId.values()]
      .filter((r) => r.organization === organization)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .map((r) => structuredClone(r));
  }

  async revoke(keyId: string, at: string): Promise<ApiKeyRecord | undefined> {
    const record = this.byId.get(keyId);
    if (!record) return undefined;
    record.revokedAt = earlierRevocation(record.revokedAt, at);
    return structuredClone(record);
  }

  async update(keyId: string, changes: KeyChanges): Promise<ApiKeyRecord | undefined> {
    const record = this.byId.get(keyId);
    if (!record) return undefined;
    const next = applyKeyChanges(record, changes);
    this.byId.set(keyId, next);
    this.byHash.set(next.hash, next);
    return structuredClone(next);
  }
}

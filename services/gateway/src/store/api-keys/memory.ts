import { earlierRevocation, keyExists, type ApiKeyRecord, type ApiKeyStore } from './port';

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
}

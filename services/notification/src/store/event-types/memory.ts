import type { EventTypeRecord, EventTypeStore, EventTypeVersionRecord } from './port';

export class InMemoryEventTypeStore implements EventTypeStore {
  private readonly types = new Map<string, EventTypeRecord>();

  async create(record: EventTypeRecord): Promise<boolean> {
    const key = keyOf(record.organization, record.name);
    if (this.types.has(key)) return false;
    this.types.set(key, structuredClone(record));
    return true;
  }

  async get(organization: string, name: string): Promise<EventTypeRecord | undefined> {
    const record = this.types.get(keyOf(organization, name));
    return record && structuredClone(record);
  }

  async list(organization: string): Promise<EventTypeRecord[]> {
    return [...this.types.values()]
      .filter((t) => t.organization === organization)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((t) => structuredClone(t));
  }

  async addVersion(
    organization: string,
    name: string,
    version: EventTypeVersionRecord,
    description?: string,
  ): Promise<EventTypeRecord | undefined> {
    const record = this.types.get(keyOf(organization, name));
    if (!record || record.deletedAt || record.versions.length !== version.version - 1)
      return undefined;
    record.versions.push(structuredClone(version));
    record.updatedAt = version.createdAt;
    if (description !== undefined) record.description = description;
    return structuredClone(record);
  }

  async markDeleted(
    organization: string,
    name: string,
    at: string,
  ): Promise<EventTypeRecord | undefined> {
    const record = this.types.get(keyOf(organization, name));
    if (!record) return undefined;
    record.deletedAt ??= at;
    return structuredClone(record);
  }
}

function keyOf(organization: string, name: string): string {
  return `${organization}\u0000${name}`;
}

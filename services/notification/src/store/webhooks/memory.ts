import type { WebhookRecord } from '../../model';
import type { WebhookPatch, WebhookStore } from './port';

export class InMemoryWebhookStore implements WebhookStore {
  private readonly byOrg = new Map<string, Map<string, WebhookRecord>>();

  async create(webhook: WebhookRecord): Promise<void> {
    this.orgMap(webhook.organization).set(webhook.id, structuredClone(webhook));
  }

  async get(organization: string, id: string): Promise<WebhookRecord | undefined> {
    const found = this.byOrg.get(organization)?.get(id);
    return found && structuredClone(found);
  }

  async list(organization: string): Promise<WebhookRecord[]> {
    return [...(this.byOrg.get(organization)?.values() ?? [])]
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
      .map((w) => structuredClone(w));
  }

  async update(
    organization: string,
    id: string,
    patch: WebhookPatch,
  ): Promise<WebhookRecord | undefined> {
    const map = this.byOrg.get(organization);
    const current = map?.get(id);
    if (!map || !current) return undefined;
    const next: WebhookRecord = { ...current, ...patch };
    map.set(id, next);
    return structuredClone(next);
  }

  async delete(organization: string, id: string): Promise<boolean> {
    return this.byOrg.get(organization)?.delete(id) ?? false;
  }

  async countDisabled(): Promise<number> {
    let disabled = 0;
    for (const map of this.byOrg.values())
      for (const webhook of map.values()) if (!webhook.enabled) disabled++;
    return disabled;
  }

  private orgMap(organization: string): Map<string, WebhookRecord> {
    let map = this.byOrg.get(organization);
    if (!map) {
      map = new Map();
      this.byOrg.set(organization, map);
    }
    return map;
  }
}

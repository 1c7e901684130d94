import type { Organization } from './port';
import { organizationExists, type OrganizationStore } from './port';

export class InMemoryOrganizationStore implements OrganizationStore {
  private readonly byId = new Map<string, Organization>();

  async create(org: Organization): Promise<void> {
    if (this.byId.has(org.id)) throw organizationExists(org.id);
    this.byId.set(org.id, structuredClone(org));
  }

  async get(id: string): Promise<Organization | undefined> {
    const org = this.byId.get(id);
    return org && structuredClone(org);
  }

  async list(): Promise<Organization[]> {
    return [...this.byId.values()]
      .map((org) => structuredClone(org))
      .sort((a, b) => a.id.localeCompare(b.id));
  }

  async replace(org: Organization): Promise<Organization | undefined> {
    const existing = this.byId.get(org.id);
    if (!existing) return undefined;
    const stored = { ...structuredClone(org), createdAt: existing.createdAt };
    this.byId.set(org.id, stored);
    return structuredClone(stored);
  }
}

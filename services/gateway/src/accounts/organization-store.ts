import { AppError } from '@switchyard/shared';
import type { Organization } from './organization';

/** Async so the MongoDB store drops in; ids are unique (create of an existing id is a conflict). */
export interface OrganizationStore {
  /** Throws AppError conflict when the id exists. */
  create(org: Organization): Promise<void>;
  get(id: string): Promise<Organization | undefined>;
  list(): Promise<Organization[]>;
  /** Replaces the stored settings (createdAt stays); undefined when the id is unknown. */
  replace(org: Organization): Promise<Organization | undefined>;
}

export function organizationExists(id: string): AppError {
  return new AppError('conflict', `organization ${id} exists with other settings`, [
    { field: '/id', reason: 'already exists' },
  ]);
}

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

import type { AgentProfile, AgentProfileStore } from '../store/profiles/port';
import type { OrganizationCache } from './organization-cache';

/**
 * Agent profiles served from memory: an organization's profiles are read once (one `list`) and
 * answer every `get` and `list` until they change; a write here drops them at once and tells
 * the other replicas (`changed`).
 */
export class CachedProfileStore implements AgentProfileStore {
  constructor(
    private readonly store: AgentProfileStore,
    private readonly cache: OrganizationCache<Map<string, AgentProfile>>,
    private readonly changed: (organization: string) => Promise<void>,
  ) {}

  async get(organization: string, name: string): Promise<AgentProfile | undefined> {
    return (await this.profiles(organization)).get(name);
  }

  async list(organization: string): Promise<AgentProfile[]> {
    return [...(await this.profiles(organization)).values()];
  }

  async put(profile: AgentProfile): Promise<void> {
    try {
      await this.store.put(profile);
    } finally {
      await this.written(profile.organization);
    }
  }

  async delete(organization: string, name: string): Promise<boolean> {
    try {
      return await this.store.delete(organization, name);
    } finally {
      await this.written(organization);
    }
  }

  /** By name, as the store lists them. */
  private profiles(organization: string): Promise<Map<string, AgentProfile>> {
    return this.cache.get(
      organization,
      async () => new Map((await this.store.list(organization)).map((p) => [p.name, p])),
    );
  }

  /** Dropped even when the write failed: it may have been applied before the error. */
  private async written(organization: string): Promise<void> {
    this.cache.drop(organization);
    await this.changed(organization);
  }
}

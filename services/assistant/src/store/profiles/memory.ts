import type { AgentProfile, AgentProfileStore } from './port';

export class InMemoryAgentProfileStore implements AgentProfileStore {
  private readonly profiles = new Map<string, AgentProfile>();

  async put(profile: AgentProfile): Promise<void> {
    this.profiles.set(
      JSON.stringify([profile.organization, profile.name]),
      structuredClone(profile),
    );
  }

  async get(organization: string, name: string): Promise<AgentProfile | undefined> {
    const found = this.profiles.get(JSON.stringify([organization, name]));
    return found ? structuredClone(found) : undefined;
  }

  async list(organization: string): Promise<AgentProfile[]> {
    return [...this.profiles.values()]
      .filter((p) => p.organization === organization)
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((p) => structuredClone(p));
  }

  async delete(organization: string, name: string): Promise<boolean> {
    return this.profiles.delete(JSON.stringify([organization, name]));
  }
}

import type { OrganizationPolicyRecord, PolicyStore } from './port';

export class InMemoryPolicyStore implements PolicyStore {
  private readonly policies = new Map<string, OrganizationPolicyRecord>();

  async put(policy: OrganizationPolicyRecord): Promise<void> {
    this.policies.set(policy.organization, structuredClone(policy));
  }

  async get(organization: string): Promise<OrganizationPolicyRecord | undefined> {
    const policy = this.policies.get(organization);
    return policy && structuredClone(policy);
  }
}

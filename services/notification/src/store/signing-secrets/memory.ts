import type { OrgSigningSecret } from '../../model';
import type { SigningSecretStore } from './port';

export class InMemorySigningSecretStore implements SigningSecretStore {
  private readonly secrets = new Map<string, OrgSigningSecret>();

  async get(organization: string): Promise<OrgSigningSecret | undefined> {
    const found = this.secrets.get(organization);
    return found && { ...found };
  }

  async getOrCreate(
    organization: string,
    create: () => OrgSigningSecret,
  ): Promise<OrgSigningSecret> {
    let found = this.secrets.get(organization);
    if (!found) {
      found = create();
      this.secrets.set(organization, found);
    }
    return { ...found };
  }

  async put(secret: OrgSigningSecret): Promise<void> {
    this.secrets.set(secret.organization, { ...secret });
  }
}

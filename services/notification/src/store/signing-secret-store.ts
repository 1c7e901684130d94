import type { OrgSigningSecret } from '../model';

/** Per-organization signing secrets for webhookUrl result callbacks. */
export interface SigningSecretStore {
  get(organization: string): Promise<OrgSigningSecret | undefined>;
  /** Stores create() unless a secret exists; returns the stored secret either way. */
  getOrCreate(organization: string, create: () => OrgSigningSecret): Promise<OrgSigningSecret>;
  put(secret: OrgSigningSecret): Promise<void>;
}

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

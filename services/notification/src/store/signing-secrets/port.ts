import type { OrgSigningSecret } from '../../model';

/** Per-organization signing secrets for webhookUrl result callbacks. */
export interface SigningSecretStore {
  get(organization: string): Promise<OrgSigningSecret | undefined>;
  /** Stores create() unless a secret exists; returns the stored secret either way. */
  getOrCreate(organization: string, create: () => OrgSigningSecret): Promise<OrgSigningSecret>;
  put(secret: OrgSigningSecret): Promise<void>;
}

import type { OrgSigningSecret } from '../model';
import type { SigningSecretStore } from '../store/signing-secrets/port';
import { activeSecrets, generateSecret, rotate } from './secrets';

/** The 'dev' organization of embedded mode; its secret may come from DEV_SIGNING_SECRET. */
export const DEV_ORGANIZATION = 'dev';

/** Organization signing secrets (for webhookUrl callbacks), created on first use. */
export class OrgSigningSecrets {
  constructor(
    private readonly store: SigningSecretStore,
    private readonly devSecret?: string,
  ) {}

  current(organization: string): Promise<OrgSigningSecret> {
    return this.store.getOrCreate(organization, () => ({
      organization,
      secret:
        organization === DEV_ORGANIZATION && this.devSecret ? this.devSecret : generateSecret(),
      createdAt: new Date().toISOString(),
    }));
  }

  async rotate(organization: string, overlapSeconds: number): Promise<OrgSigningSecret> {
    const existing = await this.current(organization);
    const next: OrgSigningSecret = {
      organization,
      createdAt: new Date().toISOString(),
      ...rotate(existing, overlapSeconds),
    };
    await this.store.put(next);
    return next;
  }

  async active(organization: string): Promise<string[]> {
    return activeSecrets(await this.current(organization));
  }
}

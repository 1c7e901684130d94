import { isDuplicateKeyError } from '@switchyard/shared';
import type { Db } from 'mongodb';
import type { OrgSigningSecret } from '../../model';
import type { SecretBox } from '../secret-box';
import type { SigningSecretStore } from './port';
import { Collections, withoutId } from '../collections';

/** _id is the organization: every callback attempt reads its organization's secret by _id. */
type SecretDoc = OrgSigningSecret & { _id: string };

/**
 * Organization signing secrets, sealed at rest; the unique organization index makes getOrCreate
 * race-free. Secrets stored before _id keys (an ObjectId _id) are found by organization, only
 * after the _id lookup missed.
 */
export class MongoSigningSecretStore implements SigningSecretStore {
  private readonly collection;

  constructor(
    db: Db,
    private readonly box: SecretBox,
  ) {
    this.collection = db.collection<SecretDoc>(Collections.signingSecrets);
  }

  async get(organization: string): Promise<OrgSigningSecret | undefined> {
    const doc =
      (await this.collection.findOne({ _id: organization })) ??
      (await this.collection.findOne({ organization }));
    return this.open(withoutId(doc));
  }

  async getOrCreate(
    organization: string,
    create: () => OrgSigningSecret,
  ): Promise<OrgSigningSecret> {
    const existing = await this.get(organization);
    if (existing) return existing;
    const created = create();
    try {
      await this.collection.insertOne({ ...this.seal(created), _id: organization });
      return created;
    } catch (error) {
      // Another replica created it first: theirs wins, so every replica signs with the same secret.
      if (!isDuplicateKeyError(error)) throw error;
      return (await this.get(organization))!;
    }
  }

  async put(secret: OrgSigningSecret): Promise<void> {
    // By organization, so a secret from before _id keys is replaced in place (rotations are rare).
    await this.collection.replaceOne({ organization: secret.organization }, this.seal(secret), {
      upsert: true,
    });
  }

  private seal(secret: OrgSigningSecret): OrgSigningSecret {
    const context = `organization:${secret.organization}`;
    const sealed: OrgSigningSecret = { ...secret, secret: this.box.seal(secret.secret, context) };
    if (secret.previousSecret !== undefined)
      sealed.previousSecret = this.box.seal(secret.previousSecret, context);
    else delete sealed.previousSecret;
    if (secret.previousSecretExpiresAt === undefined) delete sealed.previousSecretExpiresAt;
    return sealed;
  }

  private open(doc: OrgSigningSecret | undefined): OrgSigningSecret | undefined {
    if (!doc) return undefined;
    const context = `organization:${doc.organization}`;
    const record: OrgSigningSecret = { ...doc, secret: this.box.open(doc.secret, context) };
    if (doc.previousSecret !== undefined)
      record.previousSecret = this.box.open(doc.previousSecret, context);
    return record;
  }
}

import type { Db, Document } from 'mongodb';
import type { WebhookRecord } from '../../model';
import { UnreadableSecretError, type SecretBox } from '../secret-box';
import type { WebhookPatch, WebhookStore } from './port';
import { Collections, withoutId } from '../collections';

const SECRET_FIELDS = ['secret', 'previousSecret'] as const;

type WebhookDoc = WebhookRecord & { _id: string };

/**
 * Webhooks in Mongo; secret and previousSecret are sealed with the record's id as context.
 * _id is the webhook id.
 */
export class MongoWebhookStore implements WebhookStore {
  private readonly collection;

  constructor(
    db: Db,
    private readonly box: SecretBox,
  ) {
    this.collection = db.collection<WebhookDoc>(Collections.webhooks);
  }

  async create(webhook: WebhookRecord): Promise<void> {
    await this.collection.insertOne({ ...this.seal(webhook.id, { ...webhook }), _id: webhook.id });
  }

  async get(organization: string, id: string): Promise<WebhookRecord | undefined> {
    return this.open(
      withoutId<WebhookRecord>(await this.collection.findOne({ _id: id, organization })),
    );
  }

  async list(organization: string): Promise<WebhookRecord[]> {
    const docs = await this.collection
      .find({ organization })
      .sort({ createdAt: 1, id: 1 })
      .toArray();
    return docs.map((doc) => this.open(withoutId<WebhookRecord>(doc))!);
  }

  async update(
    organization: string,
    id: string,
    patch: WebhookPatch,
  ): Promise<WebhookRecord | undefined> {
    const set: Document = {};
    const unset: Document = {};
    for (const [field, value] of Object.entries(this.seal(id, { ...patch }))) {
      if (value === undefined) unset[field] = '';
      else set[field] = value;
    }
    const update: Document = {};
    if (Object.keys(set).length > 0) update.$set = set;
    if (Object.keys(unset).length > 0) update.$unset = unset;
    if (Object.keys(update).length === 0) return this.get(organization, id);
    const result = await this.collection.updateOne({ _id: id, organization }, update);
    return result.matchedCount === 0 ? undefined : this.get(organization, id);
  }

  async delete(organization: string, id: string): Promise<boolean> {
    return (await this.collection.deleteOne({ _id: id, organization })).deletedCount > 0;
  }
  countDisabled(): Promise<number> {
    return this.collection.countDocuments({ enabled: false });
  }

  private seal<T extends Partial<WebhookRecord>>(id: string, fields: T): T {
    delete fields.unusable;
    for (const field of SECRET_FIELDS) {
      const value = fields[field];
      if (typeof value === 'string')
        (fields as Partial<WebhookRecord>)[field] = this.box.seal(value, `webhook:${id}`);
    }
    return fields;
  }

  /**
   * A secret that does not open leaves the record readable, marked unusable (the current secret)
   * or without its previous secret: one damaged record, or one sealed with a key no longer in the
   * ring, must not fail every read of the organization's webhooks.
   */
  private open(doc: WebhookRecord | undefined): WebhookRecord | undefined {
    if (!doc) return undefined;
    const record = { ...doc };
    delete record.unusable;
    for (const field of SECRET_FIELDS) {
      const value = record[field];
      if (typeof value !== 'string') continue;
      try {
        record[field] = this.box.open(value, `webhook:${doc.id}`);
      } catch (error) {
        if (!(error instanceof UnreadableSecretError)) throw error;
        if (field === 'secret') {
          record.secret = '';
          record.unusable = error.message;
        } else {
          delete record.previousSecret;
          delete record.previousSecretExpiresAt;
        }
      }
    }
    return record;
  }
}

import type { Db, Document } from 'mongodb';
import { Collections } from './collections';
import { UnreadableSecretError, type SecretBox } from './secret-box';

/** What one collection held: records looked at, secrets sealed again, records whose secret opens with no key. */
export interface CollectionReport {
  records: number;
  reencrypted: number;
  /** Ids (webhooks) or organizations (signing secrets) whose secret opens with no key of the ring. */
  unreadable: string[];
}

export interface ReencryptReport {
  webhooks: CollectionReport;
  signingSecrets: CollectionReport;
}

const SECRET_FIELDS = ['secret', 'previousSecret'] as const;

/**
 * Seals again, with the ring's first key, every stored secret that opens only with an older one
 * (SECRETS_ENCRYPTION_OLD_KEYS), in the webhooks and signing secrets collections. Each write is
 * conditional on the sealed value read, so a secret rotated meanwhile is left as the rotation
 * wrote it; running it again changes nothing. Once it reports nothing left on an old key (and no
 * unreadable record), the old keys can be dropped.
 */
export async function reencryptSecrets(db: Db, box: SecretBox): Promise<ReencryptReport> {
  return {
    webhooks: await reencryptCollection(
      db,
      Collections.webhooks,
      box,
      (doc) => `webhook:${String(doc.id)}`,
      (doc) => String(doc.id),
    ),
    signingSecrets: await reencryptCollection(
      db,
      Collections.signingSecrets,
      box,
      (doc) => `organization:${String(doc.organization)}`,
      (doc) => String(doc.organization),
    ),
  };
}

async function reencryptCollection(
  db: Db,
  name: string,
  box: SecretBox,
  contextOf: (doc: Document) => string,
  nameOf: (doc: Document) => string,
): Promise<CollectionReport> {
  const report: CollectionReport = { records: 0, reencrypted: 0, unreadable: [] };
  const collection = db.collection(name);
  for await (const doc of collection.find({})) {
    report.records++;
    const context = contextOf(doc);
    for (const field of SECRET_FIELDS) {
      const sealed: unknown = doc[field];
      if (typeof sealed !== 'string') continue;
      let opened: { plaintext: string; keyIndex: number };
      try {
        opened = box.openWithKey(sealed, context);
      } catch (error) {
        if (!(error instanceof UnreadableSecretError)) throw error;
        if (field === 'secret') report.unreadable.push(nameOf(doc));
        continue;
      }
      if (opened.keyIndex === 0) continue;
      const result = await collection.updateOne(
        { _id: doc._id, [field]: sealed },
        { $set: { [field]: box.seal(opened.plaintext, context) } },
      );
      report.reencrypted += result.modifiedCount;
    }
  }
  return report;
}

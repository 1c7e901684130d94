import { isDuplicateKeyError } from '@switchyard/shared';
import { GridFSBucket, type Collection, type Db } from 'mongodb';
import type { ModelSnapshot, ModelSnapshotStore } from './snapshot-store';

interface VersionDocument {
  organization: string;
  version: number;
  /** Set once the GridFS file is complete; readers ignore versions still uploading. */
  ready: boolean;
  publishedAt: Date;
}

interface LeaseDocument {
  _id: string;
  owner: string;
  expiresAt: Date;
}

export const MODEL_VERSIONS_COLLECTION = 'model_versions';
export const TRAINING_LEASES_COLLECTION = 'model_training_leases';
const BUCKET = 'model_snapshots';
/** Older snapshots kept besides the newest, for replicas still loading one. */
const KEEP_PREVIOUS = 2;

/**
 * Snapshots in GridFS (an EASE model of 1,682 items is 11 MB, over a document's limit), with a
 * version collection whose unique index makes the first publisher of a version win.
 */
export class MongoModelSnapshotStore implements ModelSnapshotStore {
  private readonly versions: Collection<VersionDocument>;
  private readonly bucket: GridFSBucket;
  private readonly leases: Collection<LeaseDocument>;

  constructor(db: Db) {
    this.versions = db.collection<VersionDocument>(MODEL_VERSIONS_COLLECTION);
    this.bucket = new GridFSBucket(db, { bucketName: BUCKET });
    this.leases = db.collection<LeaseDocument>(TRAINING_LEASES_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    await this.versions.createIndex({ organization: 1, version: 1 }, { unique: true, name: 'organization_version' });
  }

  async latestVersion(organization: string): Promise<number> {
    const latest = await this.versions.find({ organization, ready: true }).sort({ version: -1 }).limit(1).next();
    return latest?.version ?? 0;
  }

  async latest(organization: string): Promise<ModelSnapshot | undefined> {
    const version = await this.latestVersion(organization);
    if (version === 0) return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of this.bucket.openDownloadStreamByName(fileName(organization, version))) chunks.push(chunk as Buffer);
    return { version, blob: Buffer.concat(chunks) };
  }

  async publish(organization: string, snapshot: ModelSnapshot): Promise<boolean> {
    if (snapshot.version <= (await this.latestVersion(organization))) return false;
    try {
      await this.versions.insertOne({ organization, version: snapshot.version, ready: false, publishedAt: new Date() });
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
    await new Promise<void>((resolve, reject) => {
      const upload = this.bucket.openUploadStream(fileName(organization, snapshot.version));
      upload.once('finish', () => resolve());
      upload.once('error', reject);
      upload.end(snapshot.blob);
    });
    await this.versions.updateOne({ organization, version: snapshot.version }, { $set: { ready: true } });
    await this.prune(organization, snapshot.version);
    return true;
  }

  /** One document per organization; the upsert of a held lease collides on _id and loses. */
  async claimTraining(organization: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = new Date();
    try {
      await this.leases.updateOne(
        { _id: organization, $or: [{ owner }, { expiresAt: { $lt: now } }] },
        { $set: { owner, expiresAt: new Date(now.getTime() + ttlMs) } },
        { upsert: true },
      );
      return true;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }

  async releaseTraining(organization: string, owner: string): Promise<void> {
    await this.leases.deleteOne({ _id: organization, owner });
  }

  private async prune(organization: string, newest: number): Promise<void> {
    const old = await this.versions.find({ organization, version: { $lt: newest - KEEP_PREVIOUS } }).toArray();
    for (const document of old) {
      for (const file of await this.bucket.find({ filename: fileName(organization, document.version) }).toArray()) {
        await this.bucket.delete(file._id);
      }
      await this.versions.deleteOne({ organization, version: document.version });
    }
  }
}

function fileName(organization: string, version: number): string {
  return `${organization}/${version}`;
}

import { isDuplicateKeyError } from '@switchyard/shared';
import { Binary, type Collection, type Db } from 'mongodb';
import type { ModelSnapshot, ModelSnapshotStore } from './port';

interface VersionDocument {
  /** organization \0 version: the unique `_id` makes the first publisher of a version win. */
  _id: string;
  organization: string;
  version: number;
  /** How many chunk documents hold the snapshot. */
  chunks: number;
  publishedAt: Date;
}

/** The newest complete version per organization: what every replica polls, read by `_id`. */
interface LatestDocument {
  /** The organization. */
  _id: string;
  version: number;
}

/** Part n of a snapshot (documents are limited to 16 MB; an EASE model of 1,682 items is 11 MB). */
interface ChunkDocument {
  /** organization \0 version \0 n */
  _id: string;
  data: Binary;
}

interface LeaseDocument {
  _id: string;
  owner: string;
  expiresAt: Date;
}

export const MODEL_VERSIONS_COLLECTION = 'model_snapshot_versions';
export const MODEL_LATEST_COLLECTION = 'model_latest_versions';
export const MODEL_CHUNKS_COLLECTION = 'model_snapshot_chunks';
export const TRAINING_LEASES_COLLECTION = 'model_training_leases';
const CHUNK_BYTES = 4 * 1024 * 1024;
/** Older snapshots kept besides the newest, for replicas still loading one. */
const KEEP_PREVIOUS = 2;

/**
 * Snapshots in chunk documents, every read and write by `_id`. A version is written chunks first, then made the latest: readers
 * never see a version still uploading. Models are derived data: the earlier layout (collection
 * model_versions, GridFS bucket model_snapshots) is not read; organizations are retrained.
 */
export class MongoModelSnapshotStore implements ModelSnapshotStore {
  private readonly versions: Collection<VersionDocument>;
  private readonly latestVersions: Collection<LatestDocument>;
  private readonly chunks: Collection<ChunkDocument>;
  private readonly leases: Collection<LeaseDocument>;

  constructor(db: Db) {
    this.versions = db.collection<VersionDocument>(MODEL_VERSIONS_COLLECTION);
    this.latestVersions = db.collection<LatestDocument>(MODEL_LATEST_COLLECTION);
    this.chunks = db.collection<ChunkDocument>(MODEL_CHUNKS_COLLECTION);
    this.leases = db.collection<LeaseDocument>(TRAINING_LEASES_COLLECTION);
  }

  /** Every lookup is by `_id`: no index to create. */
  async ensureIndexes(): Promise<void> {}

  async latestVersion(organization: string): Promise<number> {
    return (await this.latestVersions.findOne({ _id: organization }))?.version ?? 0;
  }

  async latest(organization: string): Promise<ModelSnapshot | undefined> {
    const version = await this.latestVersion(organization);
    if (version === 0) return undefined;
    const document = await this.versions.findOne({ _id: versionId(organization, version) });
    if (!document) return undefined;
    const ids = Array.from({ length: document.chunks }, (_, n) =>
      chunkId(organization, version, n),
    );
    const found = new Map(
      (await this.chunks.find({ _id: { $in: ids } }).toArray()).map((chunk) => [chunk._id, chunk]),
    );
    // Pruned while being read (two newer versions were published meanwhile): the caller polls again.
    if (found.size !== ids.length) return undefined;
    return { version, blob: Buffer.concat(ids.map((id) => found.get(id)!.data.buffer)) };
  }

  async publish(organization: string, snapshot: ModelSnapshot): Promise<boolean> {
    if (snapshot.version <= (await this.latestVersion(organization))) return false;
    const parts = Math.max(1, Math.ceil(snapshot.blob.length / CHUNK_BYTES));
    try {
      await this.versions.insertOne({
        _id: versionId(organization, snapshot.version),
        organization,
        version: snapshot.version,
        chunks: parts,
        publishedAt: new Date(),
      });
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
    for (let n = 0; n < parts; n++) {
      const data = new Binary(snapshot.blob.subarray(n * CHUNK_BYTES, (n + 1) * CHUNK_BYTES));
      await this.chunks.replaceOne(
        { _id: chunkId(organization, snapshot.version, n) },
        { data },
        { upsert: true },
      );
    }
    await this.makeLatest(organization, snapshot.version);
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

  /** Versions only grow: $max keeps a newer one published meanwhile. */
  private async makeLatest(organization: string, version: number): Promise<void> {
    await this.latestVersions.updateOne(
      { _id: organization },
      { $max: { version } },
      { upsert: true },
    );
  }

  /** Deletes the versions below the kept ones, newest first, down to the first already pruned. */
  private async prune(organization: string, newest: number): Promise<void> {
    for (let version = newest - KEEP_PREVIOUS - 1; version > 0; version--) {
      const document = await this.versions.findOne({ _id: versionId(organization, version) });
      if (!document) return;
      for (let n = 0; n < document.chunks; n++)
        await this.chunks.deleteOne({ _id: chunkId(organization, version, n) });
      await this.versions.deleteOne({ _id: document._id });
    }
  }
}

function versionId(organization: string, version: number): string {
  return `${organization}\u0000${version}`;
}

function chunkId(organization: string, version: number, n: number): string {
  return `${versionId(organization, version)}\u0000${n}`;
}

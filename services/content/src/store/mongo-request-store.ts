import { AppError, isDuplicateKeyError } from '@switchyard/shared';
import type { Collection, Db } from 'mongodb';
import { HeldLeases } from './held-leases';
import {
  defaultLeaseOptions,
  type AsyncRequestRecord,
  type ClaimOptions,
  type LeaseOptions,
  type RequestOutcome,
  type RequestStore,
} from './request-store';

type RequestDocument = Omit<AsyncRequestRecord, 'lease'>;

/** One lease of a request; a takeover inserts the next generation. */
interface LeaseDocument {
  organization: string;
  requestId: string;
  generation: number;
  owner: string;
  expiresAt: number;
}

export const REQUESTS_COLLECTION = 'requests';
export const LEASES_COLLECTION = 'request_leases';

function toRecord(document: RequestDocument & { _id?: unknown }, lease: LeaseDocument | null): AsyncRequestRecord {
  const { _id, ...record } = document;
  return lease && record.status === 'processing' ? { ...record, lease: { owner: lease.owner, expiresAt: lease.expiresAt } } : record;
}

/**
 * RequestStore on MongoDB. Requests live in `requests`; leases in `request_leases`, one document
 * per (request, generation) under a unique index. A claim is the INSERT of the next generation,
 * so of two replicas racing for an expired lease exactly one succeeds. (Conditional updates are
 * not enough: FerretDB applies concurrent findOneAndUpdate/updateOne on one document without
 * isolation; measured: several "winners" per race.) Each lease document has a single writer,
 * its holder, which renews it.
 */
export class MongoRequestStore implements RequestStore {
  readonly owner: string;
  private readonly leaseMs: number;
  private readonly held = new HeldLeases();
  private readonly requests: Collection<RequestDocument>;
  private readonly leases: Collection<LeaseDocument>;

  constructor(
    db: Db,
    options: LeaseOptions = defaultLeaseOptions(),
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {
    this.owner = options.owner;
    this.leaseMs = options.leaseMs;
    // Optional fields left undefined are omitted rather than stored as null.
    this.requests = db.collection<RequestDocument>(REQUESTS_COLLECTION, { ignoreUndefined: true });
    this.leases = db.collection<LeaseDocument>(LEASES_COLLECTION);
  }

  /** Identity is (organization, requestId); claims scan processing requests oldest first. */
  async ensureIndexes(): Promise<void> {
    await this.requests.createIndex({ organization: 1, requestId: 1 }, { unique: true, name: 'organization_request_id' });
    await this.requests.createIndex({ status: 1, createdAt: 1 }, { name: 'status_created_at' });
    await this.leases.createIndex({ organization: 1, requestId: 1, generation: 1 }, { unique: true, name: 'organization_request_id_generation' });
  }

  async create(record: AsyncRequestRecord): Promise<void> {
    const { lease: _ignored, ...document } = structuredClone(record);
    const processing = record.status === 'processing';
    // Held before the first write: a claim running meanwhile (the background resume) sees the
    // request without a lease for a moment and must not take it from this process.
    if (processing) this.held.add(record.organization, record.requestId, 1);
    try {
      await this.requests.insertOne(document);
    } catch (error) {
      if (processing) this.held.delete(record.organization, record.requestId);
      if (isDuplicateKeyError(error)) throw new AppError('conflict', `request ${record.requestId} already exists`);
      throw error;
    }
    // If this process dies before the lease is written, the request has none and is claimable.
    if (processing) await this.insertLease(record.organization, record.requestId, 1);
  }

  async get(organization: string, requestId: string): Promise<AsyncRequestRecord | undefined> {
    const document = await this.requests.findOne({ organization, requestId });
    if (!document) return undefined;
    return toRecord(document, document.status === 'processing' ? await this.latestLease(organization, requestId) : null);
  }

  async finish(organization: string, requestId: string, outcome: RequestOutcome): Promise<boolean> {
    const fields =
      outcome.status === 'completed'
        ? { status: outcome.status, completedAt: outcome.completedAt, totalTokens: outcome.totalTokens, result: outcome.result }
        : { status: outcome.status, completedAt: outcome.completedAt, totalTokens: outcome.totalTokens, error: { ...outcome.error } };
    const result = await this.requests.updateOne({ organization, requestId, status: 'processing' }, { $set: fields });
    // Only now: while it was still processing, holding it kept this instance from claiming it again.
    this.held.delete(organization, requestId);
    await this.leases.deleteMany({ organization, requestId });
    return result.modifiedCount === 1;
  }

  async listProcessing(limit = 1000): Promise<AsyncRequestRecord[]> {
    const documents = await this.requests.find({ status: 'processing' }).sort({ createdAt: 1 }).limit(limit).toArray();
    return Promise.all(documents.map(async (d) => toRecord(d, await this.latestLease(d.organization, d.requestId))));
  }

  async claimNext(options: ClaimOptions = {}): Promise<AsyncRequestRecord | undefined> {
    const candidates = this.requests.find({ status: 'processing' }).sort({ createdAt: 1 });
    try {
      for await (const candidate of candidates) {
        const claimed = await this.tryClaim(candidate, options);
        if (claimed) return claimed;
      }
      return undefined;
    } finally {
      await candidates.close();
    }
  }

  async renewLeases(): Promise<number> {
    for (const { organization, requestId, generation } of this.held.list()) {
      const latest = await this.latestLease(organization, requestId);
      if (!latest || latest.generation !== generation || latest.owner !== this.owner) {
        this.held.delete(organization, requestId); // finished, or taken over after it expired
        continue;
      }
      await this.leases.updateOne({ organization, requestId, generation }, { $set: { expiresAt: Date.now() + this.leaseMs } });
    }
    return this.held.list().length;
  }

  async close(): Promise<void> {
    await this.onClose();
  }

  private async tryClaim(candidate: RequestDocument, options: ClaimOptions): Promise<AsyncRequestRecord | undefined> {
    const { organization, requestId } = candidate;
    // Never one this instance holds (even if its lease lapsed): that would run it twice here.
    if (this.held.has(organization, requestId)) return undefined;
    const latest = await this.latestLease(organization, requestId);
    const claimable = !latest || latest.expiresAt <= Date.now() || (options.includeOwn === true && latest.owner === this.owner);
    if (!claimable) return undefined;
    const lease = await this.insertLease(organization, requestId, (latest?.generation ?? 0) + 1);
    if (!lease) return undefined; // another replica claimed it first
    const current = await this.requests.findOne({ organization, requestId });
    if (current?.status !== 'processing') {
      this.held.delete(organization, requestId); // finished meanwhile
      await this.leases.deleteMany({ organization, requestId });
      return undefined;
    }
    return toRecord(current, lease);
  }

  /** Inserts a lease generation; undefined when it already exists (someone else holds it). */
  private async insertLease(organization: string, requestId: string, generation: number): Promise<LeaseDocument | undefined> {
    const lease: LeaseDocument = { organization, requestId, generation, owner: this.owner, expiresAt: Date.now() + this.leaseMs };
    try {
      await this.leases.insertOne({ ...lease });
    } catch (error) {
      if (isDuplicateKeyError(error)) return undefined;
      throw error;
    }
    this.held.add(organization, requestId, generation);
    return lease;
  }

  private latestLease(organization: string, requestId: string): Promise<LeaseDocument | null> {
    return this.leases.find({ organization, requestId }).sort({ generation: -1 }).limit(1).next();
  }
}

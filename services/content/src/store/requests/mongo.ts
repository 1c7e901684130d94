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
} from './port';

/** _id is requestKey(organization, requestId): every read and write of a request is by _id. */
type RequestDocument = Omit<AsyncRequestRecord, 'lease'> & { _id: string };

/** One lease of a processing request; a takeover inserts the next generation. */
interface LeaseDocument {
  /** leaseKey(organization, requestId, generation): the unique insert that arbitrates a claim. */
  _id: string;
  organization: string;
  requestId: string;
  generation: number;
  owner: string;
  expiresAt: number;
  /** The request's createdAt, so sweeps take the oldest first without reading requests. */
  createdAt: string;
}

export const REQUESTS_COLLECTION = 'requests';
export const LEASES_COLLECTION = 'request_leases';
const MIGRATIONS_COLLECTION = 'migrations';
/** Lease documents a claim sweep reads at most (the oldest outstanding requests). */
const SWEEP_LIMIT = 2000;

/** An unambiguous _id for (organization, requestId), whatever characters they contain. */
export function requestKey(organization: string, requestId: string): string {
  return JSON.stringify([organization, requestId]);
}

function leaseKey(organization: string, requestId: string, generation: number): string {
  return JSON.stringify([organization, requestId, generation]);
}

function toRecord(document: RequestDocument, lease: LeaseDocument | undefined): AsyncRequestRecord {
  const { _id, ...record } = document;
  return lease && record.status === 'processing'
    ? { ...record, lease: { owner: lease.owner, expiresAt: lease.expiresAt } }
    : record;
}

/** The newest generation of each request among lease documents, oldest request first. */
function latestPerRequest(leases: LeaseDocument[]): LeaseDocument[] {
  const latest = new Map<string, LeaseDocument>();
  for (const lease of leases) {
    const key = requestKey(lease.organization, lease.requestId);
    if ((latest.get(key)?.generation ?? 0) < lease.generation) latest.set(key, lease);
  }
  return [...latest.values()];
}

/**
 * RequestStore on MongoDB, every request read and write addressed by _id (the `requests`
 * collection grows with history). Requests live in `requests`; leases in
 * `request_leases`, one document per (request, generation) with that as its _id. A claim is the
 * INSERT of the next generation, so of two replicas racing for an expired lease exactly one
 * succeeds, and each lease document has a single writer, its holder, which renews it.
 *
 * Only processing requests have lease documents: the first is written before the request and all
 * are removed once it finished, so `request_leases` holds the outstanding work only and the
 * claim sweep reads that small collection, never the request history.
 */
export class MongoRequestStore implements RequestStore {
  readonly owner: string;
  private readonly leaseMs: number;
  private readonly held = new HeldLeases();
  private readonly requests: Collection<RequestDocument>;
  private readonly leases: Collection<LeaseDocument>;

  constructor(
    private readonly db: Db,
    options: LeaseOptions = defaultLeaseOptions(),
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {
    this.owner = options.owner;
    this.leaseMs = options.leaseMs;
    // Optional fields left undefined are omitted rather than stored as null.
    this.requests = db.collection<RequestDocument>(REQUESTS_COLLECTION, { ignoreUndefined: true });
    this.leases = db.collection<LeaseDocument>(LEASES_COLLECTION);
  }

  /** Identity is the _id; the sweep reads outstanding leases oldest first. Moves records of the layout before _id keys. */
  async ensureIndexes(): Promise<void> {
    await this.leases.createIndex({ createdAt: 1 }, { name: 'created_at' });
    await migrateToIdKeys(this.db);
  }

  async create(record: AsyncRequestRecord): Promise<void> {
    const { lease: _ignored, ...fields } = structuredClone(record);
    const document: RequestDocument = {
      ...fields,
      _id: requestKey(record.organization, record.requestId),
    };
    const processing = record.status === 'processing';
    if (processing) {
      // The lease first: a sweep meeting it before the request exists sees a live lease, and a
      // request is never processing without a lease document to find it by.
      const lease = await this.insertLease(
        record.organization,
        record.requestId,
        1,
        record.createdAt,
      );
      if (!lease) throw new AppError('conflict', `request ${record.requestId} already exists`);
    }
    try {
      await this.requests.insertOne(document);
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      // Our lease (if any) may only go if it is ours: a duplicate request kept its own.
      if (processing) await this.dropLease(record.organization, record.requestId, 1);
      throw new AppError('conflict', `request ${record.requestId} already exists`);
    }
  }

  async get(organization: string, requestId: string): Promise<AsyncRequestRecord | undefined> {
    const document = await this.requests.findOne({ _id: requestKey(organization, requestId) });
    if (!document) return undefined;
    return toRecord(
      document,
      document.status === 'processing'
        ? await this.latestLease(organization, requestId)
        : undefined,
    );
  }

  async finish(organization: string, requestId: string, outcome: RequestOutcome): Promise<boolean> {
    const fields =
      outcome.status === 'completed'
        ? {
            status: outcome.status,
            completedAt: outcome.completedAt,
            totalTokens: outcome.totalTokens,
            result: outcome.result,
          }
        : {
            status: outcome.status,
            completedAt: outcome.completedAt,
            totalTokens: outcome.totalTokens,
            error: { ...outcome.error },
          };
    const result = await this.requests.updateOne(
      { _id: requestKey(organization, requestId), status: 'processing' },
      { $set: fields },
    );
    // Only now: while it was still processing, holding it kept this instance from claiming it again.
    const held = this.held.get(organization, requestId);
    this.held.delete(organization, requestId);
    if (result.modifiedCount === 1)
      await this.dropLeases(organization, requestId, held?.generation);
    return result.modifiedCount === 1;
  }

  async listProcessing(limit = 1000): Promise<AsyncRequestRecord[]> {
    const records: AsyncRequestRecord[] = [];
    for (const lease of await this.outstanding()) {
      if (records.length >= limit) break;
      const document = await this.requests.findOne({
        _id: requestKey(lease.organization, lease.requestId),
      });
      if (document?.status === 'processing') records.push(toRecord(document, lease));
    }
    return records;
  }

  async claimNext(options: ClaimOptions = {}): Promise<AsyncRequestRecord | undefined> {
    // Leases expired when the sweep began: one that lapses while it reads is left to the next.
    const now = Date.now();
    for (const latest of await this.outstanding()) {
      const claimed = await this.tryClaim(latest, now, options);
      if (claimed) return claimed;
    }
    return undefined;
  }

  async renewLeases(): Promise<number> {
    for (const { organization, requestId, generation } of this.held.list()) {
      // A next generation: taken over after it expired. Gone: finished.
      const takenOver = await this.leases.findOne(
        { _id: leaseKey(organization, requestId, generation + 1) },
        { projection: { _id: 1 } },
      );
      const renewed = takenOver
        ? undefined
        : await this.leases.updateOne(
            { _id: leaseKey(organization, requestId, generation) },
            { $set: { expiresAt: Date.now() + this.leaseMs } },
          );
      if (!renewed?.matchedCount) this.held.delete(organization, requestId);
    }
    return this.held.list().length;
  }

  async close(): Promise<void> {
    await this.onClose();
  }

  /** The latest lease of each outstanding request, oldest request first. */
  private async outstanding(): Promise<LeaseDocument[]> {
    const leases = await this.leases
      .find({})
      .sort({ createdAt: 1, _id: 1 })
      .limit(SWEEP_LIMIT)
      .toArray();
    return latestPerRequest(leases);
  }

  private async tryClaim(
    latest: LeaseDocument,
    now: number,
    options: ClaimOptions,
  ): Promise<AsyncRequestRecord | undefined> {
    const { organization, requestId } = latest;
    // Never one this instance holds (even if its lease lapsed): that would run it twice here.
    if (this.held.has(organization, requestId)) return undefined;
    const claimable =
      latest.expiresAt <= now || (options.includeOwn === true && latest.owner === this.owner);
    if (!claimable) return undefined;
    const lease = await this.insertLease(
      organization,
      requestId,
      latest.generation + 1,
      latest.createdAt,
    );
    if (!lease) return undefined; // another replica claimed it first
    const current = await this.requests.findOne({ _id: requestKey(organization, requestId) });
    if (current?.status !== 'processing') {
      // Finished meanwhile, or its creator died before writing it: the leases are left-overs.
      this.held.delete(organization, requestId);
      await this.dropLeases(organization, requestId, lease.generation);
      return undefined;
    }
    return toRecord(current, lease);
  }

  /** Inserts a lease generation; undefined when it already exists (someone else holds it). */
  private async insertLease(
    organization: string,
    requestId: string,
    generation: number,
    createdAt: string,
  ): Promise<LeaseDocument | undefined> {
    const lease: LeaseDocument = {
      _id: leaseKey(organization, requestId, generation),
      organization,
      requestId,
      generation,
      owner: this.owner,
      expiresAt: Date.now() + this.leaseMs,
      createdAt,
    };
    // Held before the write: a claim running meanwhile (the background resume) must not take it.
    const wasHeld = this.held.has(organization, requestId);
    this.held.add(organization, requestId, generation);
    try {
      await this.leases.insertOne({ ...lease });
    } catch (error) {
      if (!wasHeld) this.held.delete(organization, requestId);
      if (isDuplicateKeyError(error)) return undefined;
      throw error;
    }
    return lease;
  }

  /** Deletes the one generation this instance inserted, guarded by its owner. */
  private async dropLease(
    organization: string,
    requestId: string,
    generation: number,
  ): Promise<void> {
    this.held.delete(organization, requestId);
    await this.leases.deleteOne({
      _id: leaseKey(organization, requestId, generation),
      owner: this.owner,
    });
  }

  /**
   * Deletes every generation of a finished request's leases, each by _id: up to the newest this
   * instance knows, else until one is missing (generations have no gaps).
   */
  private async dropLeases(
    organization: string,
    requestId: string,
    newest?: number,
  ): Promise<void> {
    for (let generation = 1; ; generation++) {
      const deleted = await this.leases.deleteOne({
        _id: leaseKey(organization, requestId, generation),
      });
      if (newest === undefined ? deleted.deletedCount === 0 : generation >= newest) return;
    }
  }

  /** Generations are 1, 2, ... without gaps while the request is processing: probe by _id until one is missing. */
  private async latestLease(
    organization: string,
    requestId: string,
  ): Promise<LeaseDocument | undefined> {
    let latest: LeaseDocument | undefined;
    for (let generation = 1; ; generation++) {
      const lease = await this.leases.findOne({
        _id: leaseKey(organization, requestId, generation),
      });
      if (!lease) return latest;
      latest = lease;
    }
  }
}

/**
 * Databases from before _id keys: their requests (and the leases of processing ones) are
 * rewritten once under the new keys, so an upgrade strands no request. The only scan of the
 * collections, once; a processing request gets an expired lease, so a sweep takes it up.
 */
async function migrateToIdKeys(db: Db): Promise<void> {
  const migrations = db.collection<{ _id: string; doneAt: string }>(MIGRATIONS_COLLECTION);
  const name = 'request_id_keys_v1';
  if (await migrations.findOne({ _id: name })) return;
  const requests = db.collection<AnyKeyed>(REQUESTS_COLLECTION);
  const leases = db.collection<AnyKeyed>(LEASES_COLLECTION);
  // The old identity indexes would refuse the rewritten documents beside the old ones.
  for (const [collection, index] of [
    [requests, 'organization_request_id'],
    [requests, 'status_created_at'],
    [leases, 'organization_request_id_generation'],
  ] as const) {
    await collection.dropIndex(index).catch(() => undefined);
  }
  for await (const old of requests.find({ _id: { $type: 'objectId' } })) {
    const { _id: oldId, ...record } = old;
    const key = requestKey(String(record.organization), String(record.requestId));
    if (record.status === 'processing') {
      const lease = {
        _id: leaseKey(String(record.organization), String(record.requestId), 1),
        organization: record.organization,
        requestId: record.requestId,
        generation: 1,
        owner: '',
        expiresAt: 0,
        createdAt: record.createdAt,
      };
      await ignoreDuplicate(leases.insertOne(lease));
    }
    await ignoreDuplicate(requests.insertOne({ ...record, _id: key }));
    await requests.deleteOne({ _id: oldId });
  }
  await leases.deleteMany({ _id: { $type: 'objectId' } });
  await ignoreDuplicate(migrations.insertOne({ _id: name, doneAt: new Date().toISOString() }));
}

/** A document of either layout: _id an ObjectId (before) or a string key. */
type AnyKeyed = { _id: unknown } & Record<string, unknown>;

async function ignoreDuplicate(write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
}

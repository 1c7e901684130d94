import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { isDuplicateKeyError } from '@switchyard/shared';
import type { Db, Document } from 'mongodb';
import type { DeliveryRecord } from '../../model';
import type { AttemptResult, DeliveryFilter, DeliveryStore } from '../delivery-store';
import { Collections, withoutId } from './collections';
import { insertIgnoringDuplicate } from './processed-events';

/** Stored form: leaseUntil is '' when unclaimed so "free or expired" is one range query. */
type DeliveryDoc = Omit<DeliveryRecord, 'leaseUntil'> & { leaseUntil: string; leaseOwner?: string };
/** _id is the delivery id: FerretDB answers _id lookups without scanning the collection. */
type StoredDelivery = DeliveryDoc & { _id: string };

/** The claim of one attempt: its unique key (delivery id # attempt number) admits one owner. */
interface ClaimDoc {
  key: string;
  deliveryId: string;
  organization: string;
  attempt: number;
  owner: string;
  leaseUntil: string;
  claimedAt: string;
}

function isDue(doc: DeliveryDoc, now: Date): boolean {
  return doc.status === 'pending' && !!doc.nextAttemptAt && Date.parse(doc.nextAttemptAt) <= now.getTime();
}

function toRecord(doc: DeliveryDoc | undefined): DeliveryRecord | undefined {
  if (!doc) return undefined;
  const { leaseUntil, leaseOwner: _owner, ...rest } = doc;
  const record: DeliveryRecord = rest;
  if (leaseUntil) record.leaseUntil = leaseUntil;
  return record;
}

/** An id for this store instance (one per replica), recorded as the lease owner. */
export function newLeaseOwner(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/**
 * Deliveries and their attempt log in Mongo, safe with several replicas. Claiming an attempt
 * inserts a claim document keyed by (delivery id, attempt number): a unique-index insert is the
 * one write FerretDB performs atomically (its conditional updates are not compare-and-set), so
 * only one replica wins an attempt. A claim whose lease has expired (crashed replica) is deleted
 * by id and re-inserted, again arbitrated by the unique key. The winner then re-reads the
 * delivery (another replica may have finished that attempt meanwhile) and marks owner and lease
 * on it with findOneAndUpdate; those fields let sweeps skip deliveries in flight.
 */
export class MongoDeliveryStore implements DeliveryStore {
  private readonly deliveries;
  private readonly claims;

  constructor(
    db: Db,
    private readonly owner = newLeaseOwner(),
  ) {
    this.deliveries = db.collection<StoredDelivery>(Collections.deliveries);
    this.claims = db.collection<ClaimDoc>(Collections.deliveryClaims);
  }

  async createIfAbsent(delivery: DeliveryRecord): Promise<{ delivery: DeliveryRecord; created: boolean }> {
    const { leaseUntil: _lease, ...fields } = delivery;
    try {
      await this.deliveries.insertOne({ ...fields, leaseUntil: '', _id: fields.id });
      return { delivery: structuredClone({ ...fields }), created: true };
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      const existing = await this.deliveries.findOne({ organization: delivery.organization, dedupeKey: delivery.dedupeKey });
      if (!existing) throw error;
      return { delivery: toRecord(withoutId<DeliveryDoc>(existing))!, created: false };
    }
  }

  async get(organization: string, id: string): Promise<DeliveryRecord | undefined> {
    return toRecord(withoutId<DeliveryDoc>(await this.deliveries.findOne({ _id: id, organization })));
  }

  async list(organization: string, options: DeliveryFilter): Promise<DeliveryRecord[]> {
    const filter: Document = { organization };
    if (options.webhookId) filter.webhookId = options.webhookId;
    if (options.eventId) filter.eventId = options.eventId;
    const docs = await this.deliveries.find(filter).sort({ createdAt: -1, _id: -1 }).limit(options.limit).toArray();
    return docs.map((doc) => toRecord(withoutId<DeliveryDoc>(doc))!);
  }

  async claimDue(now: Date, limit: number, leaseUntil: Date): Promise<DeliveryRecord[]> {
    const at = now.toISOString();
    const candidates = await this.deliveries
      .find({ status: 'pending', nextAttemptAt: { $lte: at }, leaseUntil: { $lte: at } })
      .sort({ nextAttemptAt: 1 })
      .limit(limit)
      .toArray();
    const claimed: DeliveryRecord[] = [];
    for (const candidate of candidates) {
      const delivery = await this.tryClaim(withoutId<DeliveryDoc>(candidate)!, now, leaseUntil);
      if (delivery) claimed.push(delivery);
    }
    return claimed;
  }

  async claim(organization: string, id: string, now: Date, leaseUntil: Date): Promise<DeliveryRecord | undefined> {
    const doc = withoutId<DeliveryDoc>(await this.deliveries.findOne({ _id: id, organization }));
    return doc ? this.tryClaim(doc, now, leaseUntil) : undefined;
  }

  async release(organization: string, id: string): Promise<void> {
    await this.claims.deleteMany({ deliveryId: id, organization, owner: this.owner });
    await this.deliveries.updateOne({ _id: id, organization, leaseOwner: this.owner }, { $set: { leaseUntil: '' }, $unset: { leaseOwner: '' } });
  }

  async recordAttempt(organization: string, id: string, result: AttemptResult): Promise<DeliveryRecord | undefined> {
    const set: Document = { status: result.status, url: result.url, leaseUntil: '' };
    const unset: Document = { leaseOwner: '' };
    if (result.nextAttemptAt) set.nextAttemptAt = result.nextAttemptAt;
    else unset.nextAttemptAt = '';
    const updated = await this.deliveries.updateOne({ _id: id, organization }, { $push: { attempts: result.attempt }, $set: set, $unset: unset });
    if (updated.matchedCount === 0) return undefined;
    // The next attempt has a new claim key; old claims are only clutter now.
    await this.claims.deleteMany({ deliveryId: id });
    return this.get(organization, id);
  }

  countPending(): Promise<number> {
    return this.deliveries.countDocuments({ status: 'pending' });
  }

  private async tryClaim(doc: DeliveryDoc, now: Date, leaseUntil: Date): Promise<DeliveryRecord | undefined> {
    if (!isDue(doc, now) || (doc.leaseUntil && Date.parse(doc.leaseUntil) > now.getTime())) return undefined;
    const attempt = doc.attempts.length;
    const key = `${doc.id}#${attempt}`;
    const lease = leaseUntil.toISOString();
    if (!(await this.insertClaim(key, doc, attempt, now, lease))) return undefined;
    const current = withoutId<DeliveryDoc>(await this.deliveries.findOne({ _id: doc.id }));
    if (!current || current.attempts.length !== attempt || !isDue(current, now)) {
      await this.claims.deleteOne({ key, owner: this.owner });
      return undefined;
    }
    const marked = await this.deliveries.findOneAndUpdate(
      { _id: doc.id },
      { $set: { leaseUntil: lease, leaseOwner: this.owner } },
      { returnDocument: 'after' },
    );
    return toRecord(withoutId<DeliveryDoc>(marked) ?? { ...current, leaseUntil: lease });
  }

  /** Inserts the claim; takes over a claim whose lease expired (its holder crashed or stalled). */
  private async insertClaim(key: string, doc: DeliveryDoc, attempt: number, now: Date, leaseUntil: string): Promise<boolean> {
    // A fresh object per insert: the driver adds _id to what it inserts.
    const claim = (): ClaimDoc => ({
      key,
      deliveryId: doc.id,
      organization: doc.organization,
      attempt,
      owner: this.owner,
      leaseUntil,
      claimedAt: now.toISOString(),
    });
    if (await insertIgnoringDuplicate(() => this.claims.insertOne(claim()))) return true;
    const holder = await this.claims.findOne({ key });
    if (holder && Date.parse(holder.leaseUntil) > now.getTime()) return false;
    // Delete that exact expired document; a competitor's newer claim has another _id and survives.
    if (holder) await this.claims.deleteOne({ _id: holder._id });
    return insertIgnoringDuplicate(() => this.claims.insertOne(claim()));
  }
}

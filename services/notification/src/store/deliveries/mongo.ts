import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { isDuplicateKeyError } from '@switchyard/shared';
import { MongoBulkWriteError, type Db, type Document } from 'mongodb';
import { hostKey } from '../../delivery/host-key';
import type { DeliveryRecord } from '../../model';
import {
  dueTime,
  type AttemptResult,
  type AttemptToRecord,
  type DeliveryFilter,
  type DeliveryStore,
  type HostFilter,
} from './port';
import { Collections, insertIgnoringDuplicate, withoutId } from '../collections';

/** Stored form: leaseUntil is '' when unclaimed. */
type DeliveryDoc = Omit<DeliveryRecord, 'leaseUntil'> & { leaseUntil: string; leaseOwner?: string };
/** _id is the delivery id. */
type StoredDelivery = DeliveryDoc & { _id: string };

/**
 * The retry schedule: one entry per pending delivery (_id = delivery id), due at its next attempt
 * or, while claimed, at its lease's end. Finished deliveries leave it, so it stays as small as
 * the work outstanding and a sweep reads it through the dueAt index, never the delivery log.
 */
interface ScheduleDoc {
  _id: string;
  organization: string;
  /** Host key of the delivery's URL, so a sweep can leave saturated hosts' work for later. */
  host: string;
  dueAt: string;
  /** When a sweep first found the entry without its delivery (see settle). */
  orphanSince?: string;
}

/**
 * How long an entry without its delivery is kept: the entry is written before the delivery, so a
 * sweep between the two writes meets a delivery being created, not a stale entry.
 */
const ORPHAN_GRACE_MS = 30_000;
/** An entry without its delivery is looked at again after this long (the delivery is likely there by then). */
const ORPHAN_RECHECK_MS = 1000;

/**
 * The claim of one attempt: its _id (delivery id # attempt number, then ~n for each takeover)
 * admits one owner and is what every read and delete of a claim addresses. `key` repeats it
 * (claims from before _id keys have an ObjectId _id and only that; its unique index still arbitrates).
 */
interface ClaimDoc {
  _id: string;
  key: string;
  deliveryId: string;
  organization: string;
  attempt: number;
  owner: string;
  leaseUntil: string;
  claimedAt: string;
}

function isDue(doc: DeliveryDoc, now: Date): boolean {
  return (
    doc.status === 'pending' &&
    !!doc.nextAttemptAt &&
    Date.parse(doc.nextAttemptAt) <= now.getTime()
  );
}

/** Due, pending and not under a live lease: a claim may be tried. */
function claimable(doc: DeliveryDoc, now: Date): boolean {
  return isDue(doc, now) && !(doc.leaseUntil && Date.parse(doc.leaseUntil) > now.getTime());
}

function toRecord(doc: DeliveryDoc | undefined): DeliveryRecord | undefined {
  if (!doc) return undefined;
  const { leaseUntil, leaseOwner: _owner, ...rest } = doc;
  const record: DeliveryRecord = rest;
  if (leaseUntil) record.leaseUntil = leaseUntil;
  return record;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** An id for this store instance (one per replica), recorded as the lease owner. */
export function newLeaseOwner(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/**
 * Indexes (in the batch) of inserts refused as duplicates, when every insert of the batch is
 * accounted for (stored, or refused as a duplicate); any other failure is thrown. A bulk error
 * without write errors is the whole command failing (a connection dropped as the server stopped):
 * nothing is known to be stored, and calling it "no duplicates" would report every record created.
 */
function duplicateIndexes(error: unknown, size: number): Set<number> {
  if (error instanceof MongoBulkWriteError) {
    const errors = [error.writeErrors].flat();
    const allDuplicates = errors.every(
      (e) => e.code === 11000 || isDuplicateKeyError(e.errmsg ? { message: e.errmsg } : e),
    );
    if (errors.length > 0 && allDuplicates && error.insertedCount + errors.length === size)
      return new Set(errors.map((e) => e.index));
  }
  if (size === 1 && isDuplicateKeyError(error)) return new Set([0]);
  throw error;
}

/** Delay and size that batch the removal of finished deliveries' schedule entries. */
const FINISHED_FLUSH_MS = 20;
const FINISHED_FLUSH_SIZE = 500;

/**
 * Schedule entries of finished deliveries, removed in batches (one deleteMany instead of one
 * write per delivery). Late removal is safe: a sweep meeting such an entry finds the delivery
 * final and drops the entry.
 */
class FinishedEntries {
  private ids: string[] = [];
  private timer?: NodeJS.Timeout;
  private flushing: Promise<unknown> = Promise.resolve();

  constructor(private readonly remove: (ids: string[]) => Promise<unknown>) {}

  add(id: string): void {
    this.ids.push(id);
    if (this.ids.length >= FINISHED_FLUSH_SIZE) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FINISHED_FLUSH_MS);
      this.timer.unref();
    }
  }

  /** Removes what is waiting; resolves once every removal started so far is done. */
  flush(): Promise<unknown> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const ids = this.ids;
    this.ids = [];
    // A failed removal leaves entries a later sweep drops, so it is not retried here.
    if (ids.length > 0)
      this.flushing = this.flushing.then(() => this.remove(ids).catch(() => undefined));
    return this.flushing;
  }
}

/**
 * Deliveries and their attempt log in Mongo, safe with several replicas. Claiming an attempt
 * inserts a claim document keyed by (delivery id, attempt number): of replicas inserting the same
 * claim, the unique index lets one win the attempt. A claim whose lease has expired (crashed
 * replica) is superseded by the next generation's claim (`<key>~<n>`), again arbitrated by its
 * unique _id among the replicas that saw the same expired one; nothing is deleted to take over (a
 * guarded delete of an expired claim could race a competitor taking it over). A delivery created claimed (first
 * attempt from the event) needs no claim document: no other replica knows it before its
 * schedule entry falls due at the lease's end.
 *
 * Write order keeps every pending delivery findable: a schedule entry is written before its
 * delivery and removed only after the delivery is final; an entry without a (pending) delivery
 * is dropped when a sweep meets it.
 */
export class MongoDeliveryStore implements DeliveryStore {
  private readonly deliveries;
  private readonly schedule;
  private readonly claims;
  /** Claim keys this instance inserted and has not dropped yet (deliveries created claimed have none). */
  private readonly heldClaims = new Set<string>();
  private readonly finished: FinishedEntries;

  constructor(
    db: Db,
    private readonly owner = newLeaseOwner(),
  ) {
    this.deliveries = db.collection<StoredDelivery>(Collections.deliveries);
    this.schedule = db.collection<ScheduleDoc>(Collections.deliverySchedule);
    this.claims = db.collection<ClaimDoc>(Collections.deliveryClaims);
    this.finished = new FinishedEntries((ids) => this.unschedule(ids));
  }

  async createIfAbsent(
    delivery: DeliveryRecord,
  ): Promise<{ delivery: DeliveryRecord; created: boolean }> {
    const [created] = await this.createMany([delivery]);
    if (created) return { delivery: created, created: true };
    const existing = await this.deliveries.findOne({
      organization: delivery.organization,
      dedupeKey: delivery.dedupeKey,
    });
    if (!existing) throw new Error(`delivery ${delivery.dedupeKey} was neither created nor found`);
    return { delivery: toRecord(withoutId<DeliveryDoc>(existing))!, created: false };
  }

  async createMany(records: DeliveryRecord[]): Promise<DeliveryRecord[]> {
    if (records.length === 0) return [];
    const entries = records
      .filter((r) => r.status === 'pending' && r.nextAttemptAt)
      .map((r) => this.entry(r));
    if (entries.length > 0)
      await this.schedule
        .insertMany(entries, { ordered: false })
        .catch((e: unknown) => duplicateIndexes(e, entries.length));
    const docs = records.map((r) => this.doc(r));
    let refused = new Set<number>();
    try {
      await this.deliveries.insertMany(docs, { ordered: false });
    } catch (error) {
      refused = duplicateIndexes(error, docs.length);
    }
    // Entries of refused copies point at nothing; the original keeps its own entry.
    if (refused.size > 0) await this.unschedule([...refused].map((i) => records[i]!.id));
    return records.filter((_, i) => !refused.has(i)).map((r) => structuredClone(r));
  }

  async get(organization: string, id: string): Promise<DeliveryRecord | undefined> {
    return toRecord(
      withoutId<DeliveryDoc>(await this.deliveries.findOne({ _id: id, organization })),
    );
  }

  async list(organization: string, options: DeliveryFilter): Promise<DeliveryRecord[]> {
    const filter: Document = { organization };
    if (options.webhookId) filter.webhookId = options.webhookId;
    if (options.eventId) filter.eventId = options.eventId;
    if (options.status) filter.status = options.status;
    if (options.event) filter.event = options.event;
    const docs = await this.deliveries
      .find(filter)
      .sort({ createdAt: -1, _id: -1 })
      .limit(options.limit)
      .toArray();
    return docs.map((doc) => toRecord(withoutId<DeliveryDoc>(doc))!);
  }

  async claimDue(
    now: Date,
    limit: number,
    leaseUntil: Date,
    skip?: { host: HostFilter; until: Date },
  ): Promise<DeliveryRecord[]> {
    const due = await this.schedule
      .find({ dueAt: { $lte: now.toISOString() } })
      .sort({ dueAt: 1 })
      .limit(limit)
      .toArray();
    const postponed = skip ? due.filter((entry) => !skip.host(entry.host)) : [];
    if (postponed.length > 0) {
      const dueAt = skip!.until.toISOString();
      await this.schedule.updateMany(
        { _id: { $in: postponed.map((e) => e._id) } },
        { $set: { dueAt } },
      );
    }
    const skipped = new Set(postponed);
    return this.claimBatch(
      due.filter((e) => !skipped.has(e)),
      now,
      leaseUntil,
    );
  }

  /**
   * Claims due entries' deliveries in a few commands for the whole batch: one read of the
   * deliveries, one insert of the claims, one read to check none moved on meanwhile, one write of
   * the lease and one of the schedule. An entry that is stale, not due or whose claim exists
   * (another instance's, perhaps expired) takes the one-by-one path.
   */
  private async claimBatch(
    entries: ScheduleDoc[],
    now: Date,
    leaseUntil: Date,
  ): Promise<DeliveryRecord[]> {
    if (entries.length === 0) return [];
    const docs = await this.readDeliveries(entries.map((e) => e._id));
    const lease = leaseUntil.toISOString();
    const fast = entries.filter((e) => {
      const doc = docs.get(e._id);
      return doc !== undefined && claimable(doc, now);
    });
    const claims = fast.map((e) =>
      this.claimDoc(`${e._id}#${docs.get(e._id)!.attempts.length}`, docs.get(e._id)!, now, lease),
    );
    let refused = new Set<number>();
    if (claims.length > 0) {
      try {
        await this.claims.insertMany(claims, { ordered: false });
      } catch (error) {
        refused = duplicateIndexes(error, claims.length);
      }
    }
    const inserted = claims.filter((_, i) => !refused.has(i));
    for (const claim of inserted) this.heldClaims.add(claim._id);
    // Read again: an instance that held the previous claim may have recorded the attempt between
    // our read and our claim (its record drops its claim, so ours went in).
    const current = await this.readDeliveries(inserted.map((c) => c.deliveryId));
    const won = inserted.filter((claim) => {
      const doc = current.get(claim.deliveryId);
      return doc !== undefined && doc.attempts.length === claim.attempt && isDue(doc, now);
    });
    const wonSet = new Set(won);
    const lost = inserted.filter((claim) => !wonSet.has(claim));
    const wonIds = won.map((c) => c.deliveryId);
    for (const claim of lost) this.heldClaims.delete(claim._id);
    await Promise.all([
      lost.length > 0 &&
        this.claims.deleteMany({ _id: { $in: lost.map((c) => c._id) }, owner: this.owner }),
      wonIds.length > 0 &&
        this.deliveries.updateMany(
          { _id: { $in: wonIds } },
          { $set: { leaseUntil: lease, leaseOwner: this.owner } },
        ),
      wonIds.length > 0 &&
        this.schedule.updateMany({ _id: { $in: wonIds } }, { $set: { dueAt: lease } }),
    ]);
    const claimed = won.map((c) => toRecord({ ...current.get(c.deliveryId)!, leaseUntil: lease })!);
    // Everything else one by one, as before batches: stale entries, deliveries not due yet,
    // claims refused (held by another instance or expired and to be taken over), claims lost.
    const handled = new Set(wonIds);
    for (const entry of entries) {
      if (handled.has(entry._id)) continue;
      const doc = withoutId<DeliveryDoc>(await this.deliveries.findOne({ _id: entry._id }));
      const delivery = await this.settle(entry, doc, now, leaseUntil);
      if (delivery) claimed.push(delivery);
    }
    return claimed;
  }

  private async readDeliveries(ids: string[]): Promise<Map<string, DeliveryDoc>> {
    if (ids.length === 0) return new Map();
    const docs = await this.deliveries.find({ _id: { $in: ids } }).toArray();
    return new Map(docs.map((doc) => [doc._id, withoutId<DeliveryDoc>(doc)!]));
  }

  async claim(
    organization: string,
    id: string,
    now: Date,
    leaseUntil: Date,
  ): Promise<DeliveryRecord | undefined> {
    const doc = withoutId<DeliveryDoc>(await this.deliveries.findOne({ _id: id, organization }));
    if (!doc) return undefined;
    const claimed = await this.tryClaim(doc, now, leaseUntil);
    if (claimed) await this.reschedule(id, Date.parse(claimed.leaseUntil!));
    return claimed;
  }

  async release(organization: string, id: string, dueAt?: Date): Promise<void> {
    // Only this instance's claims of it: those it holds (a delivery created claimed has none).
    const held = [...this.heldClaims].filter((key) => key.startsWith(`${id}#`));
    for (const key of held) this.heldClaims.delete(key);
    // Only the generation held: earlier ones stay until the attempt is recorded, so a later
    // claimant still finds the chain of generations from the first.
    if (held.length > 0) await this.claims.deleteMany({ _id: { $in: held }, owner: this.owner });
    const set: Document = { leaseUntil: '' };
    if (dueAt) set.nextAttemptAt = dueAt.toISOString();
    const released = await this.deliveries.findOneAndUpdate(
      { _id: id, organization, leaseOwner: this.owner },
      { $set: set, $unset: { leaseOwner: '' } },
      { returnDocument: 'after' },
    );
    if (released?.status === 'pending')
      await this.reschedule(id, dueTime(toRecord(withoutId<DeliveryDoc>(released))!));
  }

  async recordAttempt(
    organization: string,
    id: string,
    result: AttemptResult,
  ): Promise<DeliveryRecord | undefined> {
    const updated = await this.deliveries.findOneAndUpdate(
      { _id: id, organization },
      attemptUpdate(result),
      { returnDocument: 'after' },
    );
    if (!updated) return undefined;
    // The next attempt has a new claim key; the old claim and its generations are only clutter now.
    const key = `${id}#${updated.attempts.length - 1}`;
    const held = [...this.heldClaims].find(
      (claimId) => claimId === key || claimId.startsWith(`${key}~`),
    );
    if (held) this.heldClaims.delete(held);
    const dropClaim = held
      ? this.claims.deleteMany({ _id: { $in: claimGenerations(held) } })
      : undefined;
    if (result.status === 'pending' && result.nextAttemptAt)
      await this.reschedule(id, Date.parse(result.nextAttemptAt));
    else this.finished.add(id);
    await dropClaim;
    return toRecord(withoutId<DeliveryDoc>(updated));
  }

  async recordAttempts(attempts: AttemptToRecord[]): Promise<void> {
    if (attempts.length === 0) return;
    // One update per delivery by _id (an $in filter is not served by FerretDB's _id index).
    let failed = new Set<number>();
    let failure: unknown;
    try {
      await this.deliveries.bulkWrite(
        attempts.map(({ organization, id, result }) => ({
          updateOne: { filter: { _id: id, organization }, update: attemptUpdate(result) },
        })),
        { ordered: false },
      );
    } catch (error) {
      // Without write errors nothing says which were written: the schedule is left as it is
      // (a sweep drops the entries of deliveries that did finish).
      const errors = error instanceof MongoBulkWriteError ? [error.writeErrors].flat() : [];
      if (errors.length === 0) throw error;
      failed = new Set(errors.map((e) => e.index));
      failure = error;
    }
    const recorded = attempts.filter((_, i) => !failed.has(i));
    const claims = recorded.flatMap(({ id }) => this.dropHeldClaims(id));
    // By organization too: an update that matched no delivery (another organization's id)
    // leaves that delivery's entry alone. Finished deliveries' entries go in one deleteMany per
    // organization (far cheaper on FerretDB than a delete per entry).
    const retries = recorded.filter(
      ({ result }) => result.status === 'pending' && result.nextAttemptAt,
    );
    const finished = new Map<string, string[]>();
    for (const { organization, id, result } of recorded) {
      if (result.status === 'pending' && result.nextAttemptAt) continue;
      const ids = finished.get(organization) ?? [];
      ids.push(id);
      finished.set(organization, ids);
    }
    await Promise.all([
      retries.length > 0 &&
        this.schedule.bulkWrite(
          retries.map(({ organization, id, result }) => ({
            updateOne: {
              filter: { _id: id, organization },
              update: { $set: { dueAt: result.nextAttemptAt! } },
            },
          })),
          { ordered: false },
        ),
      ...[...finished].map(([organization, ids]) =>
        this.schedule.deleteMany({ _id: { $in: ids }, organization }),
      ),
      claims.length > 0 && this.claims.deleteMany({ _id: { $in: claims } }),
    ]);
    if (failure) throw failure;
  }

  /** Forgets this instance's claims of a delivery; returns their _ids, every generation, to delete. */
  private dropHeldClaims(id: string): string[] {
    const held = [...this.heldClaims].filter((key) => key.startsWith(`${id}#`));
    for (const key of held) this.heldClaims.delete(key);
    return held.flatMap(claimGenerations);
  }

  async countPending(): Promise<number> {
    await this.finished.flush();
    return this.schedule.countDocuments({});
  }

  private entry(record: DeliveryRecord): ScheduleDoc {
    return {
      _id: record.id,
      organization: record.organization,
      host: hostKey(record.url),
      dueAt: iso(dueTime(record)),
    };
  }

  private doc(record: DeliveryRecord): StoredDelivery {
    const { leaseUntil, ...fields } = record;
    const doc: StoredDelivery = { ...fields, leaseUntil: leaseUntil ?? '', _id: fields.id };
    if (leaseUntil) doc.leaseOwner = this.owner;
    return doc;
  }

  private async unschedule(ids: string[]): Promise<void> {
    await this.schedule.deleteMany({ _id: { $in: ids } });
  }

  private async reschedule(id: string, dueAt: number): Promise<void> {
    await this.schedule.updateOne({ _id: id }, { $set: { dueAt: iso(dueAt) } });
  }

  /** A due schedule entry: claims its delivery, or drops or moves the entry if it was stale. */
  private async settle(
    entry: ScheduleDoc,
    doc: DeliveryDoc | undefined,
    now: Date,
    leaseUntil: Date,
  ): Promise<DeliveryRecord | undefined> {
    if (!doc) {
      const since = entry.orphanSince ? Date.parse(entry.orphanSince) : now.getTime();
      if (now.getTime() - since >= ORPHAN_GRACE_MS)
        await this.schedule.deleteOne({ _id: entry._id, orphanSince: entry.orphanSince });
      else
        await this.schedule.updateOne(
          { _id: entry._id },
          { $set: { dueAt: iso(now.getTime() + ORPHAN_RECHECK_MS), orphanSince: iso(since) } },
        );
      return undefined;
    }
    if (doc.status !== 'pending' || !doc.nextAttemptAt) {
      await this.schedule.deleteOne({ _id: entry._id });
      return undefined;
    }
    const claimed = await this.tryClaim(doc, now, leaseUntil);
    const current =
      claimed ??
      toRecord(withoutId<DeliveryDoc>(await this.deliveries.findOne({ _id: entry._id })));
    if (current?.status === 'pending')
      await this.reschedule(
        entry._id,
        claimed ? leaseUntil.getTime() : Math.max(dueTime(current), now.getTime() + 1000),
      );
    return claimed;
  }

  private async tryClaim(
    doc: DeliveryDoc,
    now: Date,
    leaseUntil: Date,
  ): Promise<DeliveryRecord | undefined> {
    if (!claimable(doc, now)) return undefined;
    const attempt = doc.attempts.length;
    const lease = leaseUntil.toISOString();
    const key = await this.insertClaim(`${doc.id}#${attempt}`, doc, now, lease);
    if (!key) return undefined;
    this.heldClaims.add(key);
    const current = withoutId<DeliveryDoc>(await this.deliveries.findOne({ _id: doc.id }));
    if (!current || current.attempts.length !== attempt || !isDue(current, now)) {
      this.heldClaims.delete(key);
      await this.claims.deleteOne({ _id: key, owner: this.owner });
      return undefined;
    }
    const marked = await this.deliveries.findOneAndUpdate(
      { _id: doc.id },
      { $set: { leaseUntil: lease, leaseOwner: this.owner } },
      { returnDocument: 'after' },
    );
    return toRecord(withoutId<DeliveryDoc>(marked) ?? { ...current, leaseUntil: lease });
  }

  /**
   * Inserts the claim (its _id is returned), or takes over a claim whose lease expired (its holder
   * crashed or stalled) with the next generation's; undefined when another holds the attempt.
   */
  private async insertClaim(
    key: string,
    doc: DeliveryDoc,
    now: Date,
    leaseUntil: string,
  ): Promise<string | undefined> {
    // A fresh object per insert: the driver adds _id to what it inserts.
    const insert = async (id: string) =>
      (await insertIgnoringDuplicate(() =>
        this.claims.insertOne(this.claimDoc(id, doc, now, leaseUntil)),
      ))
        ? id
        : undefined;
    const first = await insert(key);
    if (first) return first;
    const holder = await this.latestClaim(key);
    if (!holder) return insert(key); // released meanwhile
    if (Date.parse(holder.leaseUntil) > now.getTime()) return undefined;
    return insert(nextGeneration(key, holder._id));
  }

  /** The claim document of a delivery's next attempt (its number: the attempts made so far). */
  private claimDoc(id: string, doc: DeliveryDoc, now: Date, leaseUntil: string): ClaimDoc {
    return {
      _id: id,
      key: id,
      deliveryId: doc.id,
      organization: doc.organization,
      attempt: doc.attempts.length,
      owner: this.owner,
      leaseUntil,
      claimedAt: now.toISOString(),
    };
  }

  /** The newest generation of an attempt's claim: the first by _id, then each next one while it exists. */
  private async latestClaim(key: string): Promise<ClaimDoc | undefined> {
    // A claim from before _id keys only by its key (a scan, on this rare path only).
    let latest: ClaimDoc | null =
      (await this.claims.findOne({ _id: key })) ?? (await this.claims.findOne({ key }));
    while (latest) {
      const next: ClaimDoc | null = await this.claims.findOne({
        _id: nextGeneration(key, latest._id),
      });
      if (!next) return latest;
      latest = next;
    }
    return undefined;
  }
}

/** Appends the attempt, sets the new status and next attempt time, drops the lease. */
function attemptUpdate(result: AttemptResult): Document {
  const set: Document = { status: result.status, url: result.url, leaseUntil: '' };
  const unset: Document = { leaseOwner: '' };
  if (result.nextAttemptAt) set.nextAttemptAt = result.nextAttemptAt;
  else unset.nextAttemptAt = '';
  return { $push: { attempts: result.attempt }, $set: set, $unset: unset };
}

/** The claim _id that supersedes `current` (the first claim `key`, or `key~n`). */
function nextGeneration(key: string, current: unknown): string {
  // The first claim: `key`, or from before _id keys an ObjectId.
  const generation =
    typeof current !== 'string' || current === key ? 0 : Number(current.slice(key.length + 1));
  return `${key}~${generation + 1}`;
}

/** Every generation of a claim up to the given one: `key`, `key~1`, ... `key~n`. */
function claimGenerations(claimId: string): string[] {
  const [key, generation] = claimId.split('~');
  return [key!, ...Array.from({ length: Number(generation ?? 0) }, (_, i) => `${key}~${i + 1}`)];
}

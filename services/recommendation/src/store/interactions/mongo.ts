import {
  bulkWriteSkippingDuplicates,
  isDuplicateKeyError,
  moveLegacyDocuments,
} from '@switchyard/shared';
import { type AnyBulkWriteOperation, type Collection, type Db, type ObjectId } from 'mongodb';
import { scopedKey, type UserInteraction } from '../../model/types';
import type { InteractionStore, InteractionToStore } from './port';

/**
 * An interaction of the user, as the JSON text [itemId, type, value, timestamp]: an append or read
 * decodes and re-encodes the whole log document, and one string is cheaper to carry than a
 * four-field subdocument (markedly so on the local engine, FerretDB).
 */
type StoredEvent = string;

/** One user's log: a profile read is one lookup by `_id`, whatever the organization's size. */
interface UserLogDocument {
  /** organization \0 userId */
  _id: string;
  organization: string;
  userId: string;
  /** Oldest first. */
  events: StoredEvent[];
  /** Dedupe keys of the stored events that have one (a retry of one of them is skipped). */
  keys?: string[];
}

/**
 * Interactions stored per organization (read by `_id` to decide a retraining), added to after the
 * users' appends: a replica dying between the two leaves it short of the log, never over it.
 */
interface TotalDocument {
  /** The organization. */
  _id: string;
  count: number;
}

/** The earlier layout: one document per interaction, moved at start. */
interface LegacyInteractionDocument extends UserInteraction {
  _id: ObjectId;
  organization: string;
  key: string;
}

export const USER_INTERACTIONS_COLLECTION = 'user_interactions';
export const INTERACTION_TOTALS_COLLECTION = 'interaction_totals';
const LEGACY_INTERACTIONS_COLLECTION = 'interactions';
/** Tries of a user's guarded append that other replicas' appends to the same user keep beating. */
const MAX_CONFLICTS = 20;

/** One user's part of a batch, with each interaction's place in the batch. */
interface UserBatch {
  userId: string;
  entries: Array<{ index: number; interaction: InteractionToStore }>;
}

function eventOf({ itemId, type, value, timestamp }: UserInteraction): StoredEvent {
  return JSON.stringify([itemId, type, value, timestamp]);
}

function toInteraction(userId: string, event: StoredEvent): UserInteraction {
  const [itemId, type, value, timestamp] = JSON.parse(event) as [
    string,
    UserInteraction['type'],
    number,
    number,
  ];
  return { userId, itemId, type, value, timestamp };
}

function keysOf(entries: UserBatch['entries']): string[] {
  return entries.flatMap(({ interaction }) =>
    interaction.dedupeKey === undefined ? [] : [interaction.dedupeKey],
  );
}

/**
 * The append of entries to a user's log, unless the log holds one of their dedupe keys (then the
 * guard fails: with upsert, the insert then collides on `_id`, and without it nothing matches).
 * One document is written atomically, so two replicas storing the same retried batch store it once.
 */
function appendOperation(
  organization: string,
  user: UserBatch,
  entries: UserBatch['entries'],
): AnyBulkWriteOperation<UserLogDocument> {
  const keys = keysOf(entries);
  const _id = scopedKey(organization, user.userId);
  return {
    updateOne: {
      filter: keys.length === 0 ? { _id } : { _id, keys: { $nin: keys } },
      update: {
        $push: {
          events: { $each: entries.map((e) => eventOf(e.interaction)) },
          ...(keys.length === 0 ? {} : { keys: { $each: keys } }),
        },
        $setOnInsert: { organization, userId: user.userId },
      },
      upsert: true,
    },
  };
}

/**
 * InteractionStore on MongoDB: one document per user holding the user's interactions (the
 * serving path reads a profile by `_id`) and one total per organization. Retries are dropped by
 * the dedupe keys kept in the user's document. Training scans an organization's users. A user's
 * document is bounded by MongoDB's 16 MB: about 100,000 interactions of one user.
 */
export class MongoInteractionStore implements InteractionStore {
  private readonly logs: Collection<UserLogDocument>;
  private readonly totals: Collection<TotalDocument>;
  private readonly legacy: Collection<LegacyInteractionDocument>;

  constructor(db: Db) {
    this.logs = db.collection<UserLogDocument>(USER_INTERACTIONS_COLLECTION);
    this.totals = db.collection<TotalDocument>(INTERACTION_TOTALS_COLLECTION);
    this.legacy = db.collection<LegacyInteractionDocument>(LEGACY_INTERACTIONS_COLLECTION);
  }

  /** Indexes, and the log of the earlier layout moved over (its keys make the move idempotent). */
  async ensureIndexes(): Promise<void> {
    await this.logs.createIndex({ organization: 1 }, { name: 'organization' });
    await moveLegacyDocuments(this.legacy, async (batch) => {
      for (const organization of new Set(batch.map((document) => document.organization))) {
        const documents = batch.filter((document) => document.organization === organization);
        await this.append(
          organization,
          documents.map(({ userId, itemId, type, value, timestamp, key }) => ({
            userId,
            itemId,
            type,
            value,
            timestamp,
            dedupeKey: key,
          })),
        );
      }
    });
  }

  async append(
    organization: string,
    interactions: readonly InteractionToStore[],
  ): Promise<UserInteraction[]> {
    const users = groupByUser(interactions);
    if (users.length === 0) return [];
    const stored = new Set<number>();
    const conflicts = await bulkWriteSkippingDuplicates(
      this.logs,
      users.map((user) => appendOperation(organization, user, user.entries)),
    );
    users.forEach((user, position) => {
      if (!conflicts.has(position)) for (const { index } of user.entries) stored.add(index);
    });
    for (const position of conflicts) {
      for (const index of await this.appendNew(organization, users[position])) stored.add(index);
    }
    if (stored.size > 0) await this.addToTotal(organization, stored.size);
    return interactions.flatMap((interaction, index) =>
      stored.has(index) ? [withoutKey(interaction)] : [],
    );
  }

  async count(organization: string): Promise<number> {
    return (await this.totals.findOne({ _id: organization }))?.count ?? 0;
  }

  async forUser(organization: string, userId: string): Promise<UserInteraction[]> {
    const log = await this.logs.findOne(
      { _id: scopedKey(organization, userId) },
      { projection: { events: 1 } },
    );
    return (log?.events ?? []).map((event) => toInteraction(userId, event));
  }

  /** Streams user by user with a cursor, so rebuilding a model never holds the whole log as documents. */
  async *scan(organization: string): AsyncIterable<UserInteraction> {
    const cursor = this.logs
      .find({ organization }, { projection: { userId: 1, events: 1 } })
      .batchSize(100);
    try {
      for await (const { userId, events } of cursor) {
        for (const event of events) yield toInteraction(userId, event);
      }
    } finally {
      await cursor.close();
    }
  }

  async organizations(): Promise<string[]> {
    return (await this.totals.find({}, { projection: { _id: 1 } }).toArray()).map(
      (total) => total._id,
    );
  }

  /**
   * A user's part of a batch that met a dedupe key already stored: stores the entries whose keys
   * the log does not hold, guarded again (another replica may append meanwhile). Their indexes.
   */
  private async appendNew(organization: string, user: UserBatch): Promise<number[]> {
    const _id = scopedKey(organization, user.userId);
    for (let attempt = 0; attempt < MAX_CONFLICTS; attempt++) {
      const held = new Set(
        (await this.logs.findOne({ _id }, { projection: { keys: 1 } }))?.keys ?? [],
      );
      const fresh = user.entries.filter(
        ({ interaction }) =>
          interaction.dedupeKey === undefined || !held.has(interaction.dedupeKey),
      );
      if (fresh.length === 0) return [];
      try {
        const result = await this.logs.bulkWrite([appendOperation(organization, user, fresh)]);
        if (result.upsertedCount + result.modifiedCount > 0)
          return fresh.map((entry) => entry.index);
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
    }
    throw new Error(
      `interactions of one user kept conflicting with concurrent appends (${MAX_CONFLICTS} tries)`,
    );
  }

  private async addToTotal(organization: string, count: number): Promise<void> {
    await this.totals.updateOne({ _id: organization }, { $inc: { count } }, { upsert: true });
  }
}

/** The batch by user, first appearance first; repeats of a dedupe key within the batch dropped. */
function groupByUser(interactions: readonly InteractionToStore[]): UserBatch[] {
  const seen = new Set<string>();
  const users = new Map<string, UserBatch>();
  interactions.forEach((interaction, index) => {
    if (interaction.dedupeKey !== undefined) {
      if (seen.has(interaction.dedupeKey)) return;
      seen.add(interaction.dedupeKey);
    }
    let user = users.get(interaction.userId);
    if (!user) users.set(interaction.userId, (user = { userId: interaction.userId, entries: [] }));
    user.entries.push({ index, interaction });
  });
  return [...users.values()];
}

function withoutKey({
  dedupeKey: _dedupeKey,
  ...interaction
}: InteractionToStore): UserInteraction {
  return interaction;
}

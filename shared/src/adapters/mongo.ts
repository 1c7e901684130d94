import {
  MongoClient,
  type AnyBulkWriteOperation,
  type Collection,
  type Db,
  type Document,
  type Filter,
  type FindOptions,
  type WithId,
} from 'mongodb';
import type { Logger } from 'pino';
import { dependencyHealth, type DependencyProbe } from '../resilience/dependencies';

export interface MongoConnection {
  client: MongoClient;
  db: Db;
  close(): Promise<void>;
}

/**
 * Connects to MongoDB (or a wire-compatible server such as FerretDB). Each service owns its own
 * database (switchyard_<service> by default). Only features every target server supports are
 * used: no transactions, change streams or TTL indexes.
 */
export async function connectMongo(
  uri: string,
  dbName: string,
  logger: Logger,
  /** How long startup waits for the server (it may start after this process). */
  startupWaitMs = 30_000,
): Promise<MongoConnection> {
  const deadline = Date.now() + startupWaitMs;
  for (;;) {
    const client = mongoClient(uri);
    try {
      await client.connect();
      const db = client.db(dbName);
      await db.command({ ping: 1 });
      const health = watchHealth(client);
      logger.info({ database: dbName }, 'connected to MongoDB');
      return {
        client,
        db,
        close: async () => {
          health.close();
          await client.close();
        },
      };
    } catch (error) {
      await client.close().catch(() => undefined);
      if (Date.now() >= deadline) throw error;
      logger.warn({ error: (error as Error).message }, 'MongoDB not reachable yet; retrying');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/**
 * Outage settings: an operation waits at most MONGO_SERVER_SELECTION_TIMEOUT_MS for a server
 * (it then fails, and the call answers 503 unavailable) instead of the driver's 30 s; the
 * server is checked every second, so a hung or returning server is seen within about a second
 * (a failed check also interrupts the operations in flight on it).
 */
export const MONGO_SERVER_SELECTION_TIMEOUT_MS = 800;

function mongoClient(uri: string): MongoClient {
  return new MongoClient(uri, {
    serverSelectionTimeoutMS: MONGO_SERVER_SELECTION_TIMEOUT_MS,
    connectTimeoutMS: 1000,
    heartbeatFrequencyMS: 1000,
    retryWrites: false,
    maxPoolSize: 20,
  });
}

/** The driver's heartbeats tell this process's dependency health whether the server answers. */
function watchHealth(client: MongoClient): DependencyProbe {
  const health = dependencyHealth.probe('mongodb');
  client.on('serverHeartbeatSucceeded', () => health.report(true));
  client.on('serverHeartbeatFailed', () => health.report(false));
  return health;
}

/** Mongo's duplicate-key error (E11000; some wire-compatible servers report it on updates as code 1). */
export function isDuplicateKeyError(error: unknown): boolean {
  const e = error as { code?: number; message?: string };
  return e?.code === 11000 || /duplicate key|UNIQUE constraint/i.test(e?.message ?? '');
}

/**
 * Runs an upsert again when it lost the race to insert a new `_id` (the other replica's document
 * is there now, so the second run updates it). Any other error is thrown.
 */
export async function upsertRacingReplicas<T>(upsert: () => Promise<T>): Promise<T> {
  try {
    return await upsert();
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
    return upsert();
  }
}

/**
 * Documents by `_id`, one lookup each, `concurrency` at a time. `_id` equality is the lookup every
 * MongoDB-compatible server serves from its index (FerretDB's SQLite backend scans for `$in`).
 * Missing ids are left out.
 */
export async function findByIds<T extends Document & { _id: string }>(
  collection: Collection<T>,
  ids: readonly string[],
  options: FindOptions = {},
  concurrency = 16,
): Promise<Map<string, WithId<T>>> {
  const unique = [...new Set(ids)];
  const found = new Map<string, WithId<T>>();
  let next = 0;
  const worker = async () => {
    while (next < unique.length) {
      const id = unique[next++];
      const document = await collection.findOne({ _id: id } as Filter<T>, options);
      if (document) found.set(id, document as WithId<T>);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, unique.length) }, worker));
  return found;
}

/**
 * Moves the documents of an earlier layout's collection into the current one, `batchSize` at a
 * time: `move` stores a batch in the new layout idempotently, then the batch is deleted from the
 * old collection (by `_id`). Run at start: replicas starting at once, or a restart after a crash
 * half-way, finish the move without losing or doubling a document. Returns how many were moved.
 */
export async function moveLegacyDocuments<L extends Document>(
  legacy: Collection<L>,
  move: (batch: WithId<L>[]) => Promise<void>,
  batchSize = 500,
): Promise<number> {
  let moved = 0;
  let batch: WithId<L>[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    await move(batch);
    await bulkWriteInCommands(
      legacy,
      batch.map((document) => ({ deleteOne: { filter: { _id: document._id } as Filter<L> } })),
    );
    moved += batch.length;
    batch = [];
  };
  for await (const document of legacy.find({}).sort({ _id: 1 }).batchSize(batchSize)) {
    batch.push(document);
    if (batch.length === batchSize) await flush();
  }
  await flush();
  return moved;
}

/**
 * Inserts each document unless one with its `_id` exists (the existing one is newer: it was
 * written in the current layout). For moving legacy documents (see moveLegacyDocuments).
 */
export async function insertMissing<T extends Document & { _id: string }>(
  collection: Collection<T>,
  documents: readonly T[],
): Promise<void> {
  if (documents.length === 0) return;
  const operations = documents.map(({ _id, ...rest }) => ({
    updateOne: {
      filter: { _id } as Filter<T>,
      update: { $setOnInsert: rest as Partial<T> },
      upsert: true,
    },
  }));
  // A duplicate: another replica inserted the same _id between the match and the insert; it is there.
  await bulkWriteSkippingDuplicates(collection, operations as AnyBulkWriteOperation<T>[]);
}

/**
 * Write statements per command. The local FerretDB (1.24, SQLite; the stock build as well as the
 * one with this project's `_id` patches) never answers an update command that modifies 100 or
 * more existing documents (99 pass in about 0.1 s; the command hangs for minutes and holds up the
 * database): every bulk is sent in commands of this many statements.
 */
export const WRITE_STATEMENTS_PER_COMMAND = 50;

/**
 * Runs every operation, in order, and returns the positions of those that failed on a duplicate
 * key (any other error is thrown). Ordered bulks resumed after each failure: FerretDB stops an
 * `update` command at its first error even when unordered (the later updates never run, and are
 * not reported), while both servers stop an ordered bulk there, so what ran is known exactly.
 */
export async function bulkWriteSkippingDuplicates<T extends Document>(
  collection: Collection<T>,
  operations: readonly AnyBulkWriteOperation<T>[],
): Promise<Set<number>> {
  const duplicates = new Set<number>();
  let start = 0;
  while (start < operations.length) {
    const end = Math.min(start + WRITE_STATEMENTS_PER_COMMAND, operations.length);
    try {
      await collection.bulkWrite(operations.slice(start, end), { ordered: true });
      start = end;
    } catch (error) {
      const failed = (error as { writeErrors?: unknown }).writeErrors;
      const first = (Array.isArray(failed) ? failed[0] : failed) as
        { index?: number; code?: number; errmsg?: string } | undefined;
      if (
        typeof first?.index !== 'number' ||
        !isDuplicateKeyError({ code: first.code, message: first.errmsg })
      )
        throw error;
      duplicates.add(start + first.index);
      start += first.index + 1;
    }
  }
  return duplicates;
}

/** An idempotent bulk (replayable as a whole) in commands of WRITE_STATEMENTS_PER_COMMAND, unordered within each. */
export async function bulkWriteInCommands<T extends Document>(
  collection: Collection<T>,
  operations: readonly AnyBulkWriteOperation<T>[],
): Promise<void> {
  for (let start = 0; start < operations.length; start += WRITE_STATEMENTS_PER_COMMAND) {
    await collection.bulkWrite(operations.slice(start, start + WRITE_STATEMENTS_PER_COMMAND), {
      ordered: false,
    });
  }
}

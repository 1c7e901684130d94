import {
  MongoClient,
  MongoNotConnectedError,
  type AnyBulkWriteOperation,
  type Collection,
  type Db,
  type Document,
  type Filter,
  type WithId,
} from 'mongodb';
import type { Logger } from 'pino';
import { dependencyHealth, type DependencyProbe } from '../resilience/dependencies';
import { commandMetricsEnabled, timeMongoCommands } from './command-metrics';

export interface MongoConnection {
  client: MongoClient;
  db: Db;
  close(): Promise<void>;
}

/**
 * Connects to MongoDB (or a wire-compatible server such as FerretDB). Each service owns its own
 * database (switchyard_<service> by default). The stores are written for MongoDB, without
 * transactions or change streams; what the local engine (FerretDB, deploy/local) lacks beyond
 * that is handled in this file: TTL indexes (ensureExpiryIndex) and the duplicate key of an
 * update (isDuplicateKeyError).
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
    if (client.options.monitorCommands) timeMongoCommands(client);
    try {
      await client.connect();
      const db = client.db(dbName);
      await db.command({ ping: 1 });
      const health = watchHealth(client);
      const monitor = restartStalledMonitor(client, logger);
      logger.info({ database: dbName }, 'connected to MongoDB');
      return {
        client,
        db,
        close: async () => {
          monitor.stop();
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
    monitorCommands: commandMetricsEnabled(),
  });
}

/**
 * How long one server check may take before it counts as stalled: a check is a connect
 * (connectTimeoutMS) and a hello (connectTimeoutMS again), plus slack for a busy event loop.
 */
export const MONGO_STALLED_CHECK_MS = 3000;

/**
 * The driver (6.x and 7.x alike) can stall its server monitor for good: when an operation's
 * network error marks the server unknown in the same tick the server drops the monitor's own
 * connection, the monitor re-checks over that connection before it has seen the close; the
 * socket is already destroyed, so the write waits for a `drain` that never comes and no
 * timeout applies. No check ever completes, the server stays unknown and every operation fails
 * server selection although the server is back. A check that has neither succeeded nor failed
 * after MONGO_STALLED_CHECK_MS is that stall: the client is closed and connected again (the
 * same MongoClient, so every Db and Collection handle keeps working), which starts a new monitor.
 */
function restartStalledMonitor(
  client: MongoClient,
  logger: Logger,
  stalledAfterMs = MONGO_STALLED_CHECK_MS,
): { stop(): void } {
  let checkStartedAt: number | undefined;
  let restarting = false;
  const started = () => (checkStartedAt ??= Date.now());
  const ended = () => (checkStartedAt = undefined);
  client.on('serverHeartbeatStarted', started);
  client.on('serverHeartbeatSucceeded', ended);
  client.on('serverHeartbeatFailed', ended);
  let stopped = false;
  // A failed connect leaves a closed topology that fails every operation, so it is tried until
  // it succeeds (operations meanwhile fail as an outage: 503).
  const reconnect = async () => {
    await client.close();
    for (;;) {
      try {
        await client.connect();
        if (stopped) await client.close();
        return;
      } catch (error) {
        if (stopped) return;
        logger.warn({ error: (error as Error).message }, 'MongoDB not reachable yet; retrying');
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  };
  const timer = setInterval(() => {
    if (restarting || checkStartedAt === undefined) return;
    const stalledMs = Date.now() - checkStartedAt;
    if (stalledMs < stalledAfterMs) return;
    restarting = true;
    checkStartedAt = undefined;
    logger.warn(
      { stalledMs },
      'MongoDB server check stalled in the driver; reconnecting the client',
    );
    void reconnect().finally(() => (restarting = false));
  }, stalledAfterMs / 4);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      client.off('serverHeartbeatStarted', started);
      client.off('serverHeartbeatSucceeded', ended);
      client.off('serverHeartbeatFailed', ended);
    },
  };
}

/** The driver's heartbeats tell this process's dependency health whether the server answers. */
function watchHealth(client: MongoClient): DependencyProbe {
  const health = dependencyHealth.probe('mongodb');
  client.on('serverHeartbeatSucceeded', () => health.report(true));
  client.on('serverHeartbeatFailed', () => health.report(false));
  return health;
}

/** Mongo's duplicate-key error (E11000; FerretDB reports one caused by an update as code 1). */
export function isDuplicateKeyError(error: unknown): boolean {
  const e = error as { code?: number; message?: string };
  return e?.code === 11000 || /duplicate key|UNIQUE constraint/i.test(e?.message ?? '');
}

/** Code of a command or option the server does not implement (FerretDB: TTL indexes). */
const NOT_IMPLEMENTED = 238;

/** Codes of an index that exists with other options, or under this name with another key. */
const INDEX_OPTIONS_CONFLICT = 85;
const INDEX_KEY_SPECS_CONFLICT = 86;

function sameKey(a: Document, b: Document): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** How often documents past their expiry are removed where the server has no TTL monitor. */
export const EXPIRY_SWEEP_INTERVAL_MS = 60_000;

/**
 * A TTL index: documents are removed once the Date in `field` has passed (`expireAfterSeconds:
 * 0`), by MongoDB's TTL monitor (about once a minute). A server without TTL indexes (FerretDB
 * answers NotImplemented) gets a plain index on `field` and the same removal from this process
 * every `sweepIntervalMs` until its client closes (call it once per store, at start). Either way a document can outlive its expiry
 * by a minute or so: readers still check it.
 */
export async function ensureExpiryIndex<T extends Document>(
  collection: Collection<T>,
  field: string,
  name: string,
  sweepIntervalMs = EXPIRY_SWEEP_INTERVAL_MS,
): Promise<'ttl-index' | 'sweeper'> {
  const key = { [field]: 1 };
  for (let attempt = 0; ; attempt++) {
    try {
      await collection.createIndex(key, { name, expireAfterSeconds: 0 });
      return 'ttl-index';
    } catch (error) {
      const code = (error as { code?: number }).code;
      if (code === NOT_IMPLEMENTED) break;
      if (attempt > 0 || (code !== INDEX_OPTIONS_CONFLICT && code !== INDEX_KEY_SPECS_CONFLICT))
        throw error;
      // A plain index on the field from an earlier layout: replaced by the TTL index.
      const indexes = await collection.indexes();
      const earlier = indexes.find((index) => index.name === name || sameKey(index.key, key));
      if (!earlier?.name) throw error;
      await collection.dropIndex(earlier.name);
    }
  }
  await collection.createIndex({ [field]: 1 }, { name });
  sweepExpired(collection, field, sweepIntervalMs);
  return 'sweeper';
}

/** Removes the documents past their expiry every intervalMs, until the collection's client closes. */
function sweepExpired<T extends Document>(
  collection: Collection<T>,
  field: string,
  intervalMs: number,
): void {
  let notConnected = 0;
  const timer = setInterval(() => {
    collection
      .deleteMany({ [field]: { $lte: new Date() } } as Filter<T>)
      .then(() => (notConnected = 0))
      .catch((error: unknown) => {
        // A client closed by its owner ends the sweeper (twice in a row: a client reconnecting
        // after a stalled check is briefly not connected); other failures wait for the next sweep.
        notConnected = error instanceof MongoNotConnectedError ? notConnected + 1 : 0;
        if (notConnected >= 2) clearInterval(timer);
      });
  }, intervalMs);
  timer.unref();
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
    await legacy.deleteMany({ _id: { $in: batch.map((document) => document._id) } } as Filter<L>);
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
    try {
      await collection.bulkWrite(operations.slice(start), { ordered: true });
      start = operations.length;
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

import { MongoClient, type Db } from 'mongodb';
import type { Logger } from 'pino';

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
export async function connectMongo(uri: string, dbName: string, logger: Logger): Promise<MongoConnection> {
  const client = new MongoClient(uri, {
    serverSelectionTimeoutMS: 10_000,
    connectTimeoutMS: 10_000,
    retryWrites: false,
    maxPoolSize: 20,
  });
  await client.connect();
  const db = client.db(dbName);
  await db.command({ ping: 1 });
  logger.info({ database: dbName }, 'connected to MongoDB');
  return { client, db, close: () => client.close() };
}

/** Mongo's duplicate-key error (E11000; some wire-compatible servers report it on updates as code 1). */
export function isDuplicateKeyError(error: unknown): boolean {
  const e = error as { code?: number; message?: string };
  return e?.code === 11000 || /duplicate key|UNIQUE constraint/i.test(e?.message ?? '');
}

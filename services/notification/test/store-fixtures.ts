import { connectMongo, connectRedis, type MongoConnection } from '@switchyard/shared';
import type { Redis } from 'ioredis';
import {
  endpointOf,
  silentLogger,
  uniqueName,
  type BackendFixture,
} from '@switchyard/shared/testing';
import type { DeliveryRecord, WebhookRecord } from '../src/model';
import {
  ensureIndexes,
  inMemoryStores,
  mongoStores,
  SecretBox,
  type NotificationStores,
} from '../src/store';

/** A fresh store backend for one test. */
export interface StoreWorld {
  stores: NotificationStores;
  /** Store instances over the same state: a restarted process or a second replica. */
  reopen(): Promise<NotificationStores>;
  /** Mongo only: the raw database (to look at what is at rest). */
  connection?: MongoConnection;
  dispose(): Promise<void>;
}

export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7);

/**
 * Redis clients of one test under a key prefix of its own (each client a replica's connection):
 * clear() deletes the test's keys, dispose() also closes the clients.
 */
export function redisFixture(name: string) {
  const prefix = `${uniqueName(name)}:`;
  const clients: Redis[] = [];
  const clear = async () => {
    const keys = await clients[0]!.keys(`${prefix}*`);
    if (keys.length > 0) await clients[0]!.del(...keys);
  };
  return {
    prefix,
    connect: async (): Promise<Redis> => {
      const redis = await connectRedis(endpointOf('redis')!, silentLogger());
      clients.push(redis);
      return redis;
    },
    clear,
    dispose: async () => {
      await clear();
      for (const client of clients) client.disconnect();
    },
  };
}

export const memoryWorld: BackendFixture<StoreWorld> = {
  async create() {
    const stores = inMemoryStores();
    // One process: the "other instance" shares the same memory.
    return { stores, reopen: async () => stores, dispose: async () => {} };
  },
};

/** A unique database per test, dropped afterwards; every reopen is a new client connection. */
export const mongoWorld: BackendFixture<StoreWorld> = {
  async create() {
    const uri = endpointOf('mongo')!;
    const database = uniqueName('notification_test');
    const connections: MongoConnection[] = [];
    const open = async () => {
      const connection = await connectMongo(uri, database, silentLogger());
      connections.push(connection);
      await ensureIndexes(connection.db);
      return { connection, stores: mongoStores(connection.db, new SecretBox(TEST_ENCRYPTION_KEY)) };
    };
    const first = await open();
    return {
      stores: first.stores,
      connection: first.connection,
      reopen: async () => (await open()).stores,
      dispose: async () => {
        await first.connection.db.dropDatabase();
        await Promise.all(connections.map((c) => c.close()));
      },
    };
  },
  destroy: (world) => world.dispose(),
};

export const storeBackends = { memory: memoryWorld, mongo: mongoWorld };

let counter = 0;

export function webhookRecord(overrides: Partial<WebhookRecord> = {}): WebhookRecord {
  const now = new Date().toISOString();
  return {
    id: `wh_${++counter}_${Math.random().toString(36).slice(2, 8)}`,
    organization: 'org_a',
    events: ['data_updated'],
    url: 'https://hooks.example.com/a',
    enabled: true,
    disabledReason: '',
    createdAt: now,
    updatedAt: now,
    secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
    ...overrides,
  };
}

export function deliveryRecord(overrides: Partial<DeliveryRecord> = {}): DeliveryRecord {
  const id = `dlv_${++counter}_${Math.random().toString(36).slice(2, 8)}`;
  const eventId = overrides.eventId ?? `evt_${id}`;
  const webhookId = overrides.webhookId ?? 'wh_1';
  const now = new Date();
  return {
    id,
    organization: 'org_a',
    webhookId,
    messageId: `msg_${id}`,
    eventId,
    event: 'data_updated',
    occurredAt: now.toISOString(),
    url: 'https://hooks.example.com/a',
    payload: '{"event":"data_updated"}',
    status: 'pending',
    attempts: [],
    createdAt: now.toISOString(),
    nextAttemptAt: new Date(now.getTime() - 1000).toISOString(),
    ...overrides,
  };
}

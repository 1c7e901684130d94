import type { Db } from 'mongodb';
import { connectMongo, type MongoConnection } from '../src/adapters/mongo';
import { endpointOf, silentLogger, uniqueName, type BackendFixture } from '../src/testing';

/** A store under test and a way to open a second one over the same state (a restart, another replica). */
export interface StoreWorld<S> {
  store: S;
  reopen(): Promise<S>;
  dispose(): Promise<void>;
}

/** The in-memory fixture: the same instance is "reopened" (its state lives in the process). */
export function memoryWorld<S>(create: () => S): BackendFixture<StoreWorld<S>> {
  return {
    async create() {
      const store = create();
      return { store, reopen: async () => store, dispose: async () => {} };
    },
  };
}

/** The Mongo fixture: a unique database per test, dropped afterwards; each reopen is a new connection. */
export function mongoWorld<S extends { ensureIndexes(): Promise<void> }>(
  prefix: string,
  create: (db: Db) => S,
): BackendFixture<StoreWorld<S>> {
  return {
    async create() {
      const database = uniqueName(prefix);
      const connections: MongoConnection[] = [];
      const open = async () => {
        const connection = await connectMongo(endpointOf('mongo')!, database, silentLogger());
        connections.push(connection);
        const store = create(connection.db);
        await store.ensureIndexes();
        return store;
      };
      const store = await open();
      return {
        store,
        reopen: open,
        dispose: async () => {
          await connections[0]!.db.dropDatabase();
          await Promise.all(connections.map((c) => c.close()));
        },
      };
    },
    destroy: (world) => world.dispose(),
  };
}

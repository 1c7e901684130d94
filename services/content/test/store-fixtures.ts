import { connectMongo, type MongoConnection } from '@switchyard/shared';
import {
  endpointOf,
  silentLogger,
  uniqueName,
  type BackendFixture,
} from '@switchyard/shared/testing';
import {
  InMemoryRequestStore,
  MongoRequestStore,
  type AsyncRequestRecord,
  type LeaseOptions,
  type RequestStore,
} from '../src/store';

/** One backend for a test: stores opened on it share the data, like replicas on one database. */
export interface RequestStoreBackend {
  /** A store instance (a replica, or the same replica after a restart when given the same owner). */
  open(lease?: Partial<LeaseOptions>): Promise<RequestStore>;
}

interface Opened extends RequestStoreBackend {
  cleanup(): Promise<void>;
}

let owners = 0;
const leaseOf = (lease: Partial<LeaseOptions> = {}): LeaseOptions => ({
  owner: lease.owner ?? `replica_${++owners}`,
  leaseMs: lease.leaseMs ?? 60_000,
});

export const requestStoreFixtures: {
  memory: BackendFixture<Opened>;
  mongo: BackendFixture<Opened>;
} = {
  memory: {
    async create() {
      const records = new InMemoryRequestStore();
      return {
        open: async (lease) => records.sharing(leaseOf(lease)),
        cleanup: async () => undefined,
      };
    },
  },
  mongo: {
    async create() {
      const database = uniqueName('test_content');
      const connections: MongoConnection[] = [];
      return {
        // A connection per store, as separate processes would have.
        async open(lease) {
          const connection = await connectMongo(endpointOf('mongo')!, database, silentLogger());
          connections.push(connection);
          const store = new MongoRequestStore(connection.db, leaseOf(lease));
          await store.ensureIndexes();
          return store;
        },
        async cleanup() {
          if (connections[0]) await connections[0].db.dropDatabase();
          await Promise.all(connections.map((c) => c.close()));
        },
      };
    },
    destroy: (opened) => opened.cleanup(),
  },
};

let sequence = 0;

/** A processing generate request as SubmitGenerate records it. */
export function processingRecord(overrides: Partial<AsyncRequestRecord> = {}): AsyncRequestRecord {
  sequence++;
  return {
    requestId: `req_${sequence}_${Math.random().toString(36).slice(2, 8)}`,
    organization: 'org_a',
    keyId: 'key_1',
    status: 'processing',
    operation: 'generate',
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, sequence)).toISOString(),
    webhookUrl: 'https://hooks.example.com/r',
    model: 'builtin',
    input: {
      prompt: 'Write about a reusable water bottle',
      maxTokens: 200,
      tone: '',
      language: 'en',
    },
    result: '',
    totalTokens: 0,
    ...overrides,
  };
}

/**
 * Runs one contract suite against every backend of a port: the in-memory implementation always,
 * the real one when its endpoint is known (MONGODB_URI, REDIS_URL, KAFKA_BROKERS are set by the
 * test global setup: given endpoints, testcontainers, or the local servers of deploy/local).
 * Without an endpoint the real variant is reported as pending, never silently passed.
 */
export type BackendName = 'memory' | 'mongo' | 'redis' | 'kafka';

const ENDPOINT_VARIABLE: Record<Exclude<BackendName, 'memory'>, string> = {
  mongo: 'MONGODB_URI',
  redis: 'REDIS_URL',
  kafka: 'KAFKA_BROKERS',
};

export function endpointOf(backend: Exclude<BackendName, 'memory'>): string | undefined {
  return process.env[ENDPOINT_VARIABLE[backend]] || undefined;
}

export interface BackendFixture<T> {
  /** Creates a fresh, empty instance for one test (e.g. a unique database or key prefix). */
  create(): Promise<T>;
  /** Releases it (close connections, drop the database). */
  destroy?(instance: T): Promise<void>;
}

export function contractSuite<T>(
  title: string,
  fixtures: Partial<Record<BackendName, BackendFixture<T>>>,
  suite: (subject: () => T) => void,
): void {
  for (const [backend, fixture] of Object.entries(fixtures) as Array<
    [BackendName, BackendFixture<T>]
  >) {
    describe(`${title} [${backend}]`, function () {
      let instance: T | undefined;
      before(function () {
        if (backend !== 'memory' && !endpointOf(backend)) this.skip();
      });
      beforeEach(async function () {
        this.timeout(30_000);
        instance = await fixture.create();
      });
      afterEach(async function () {
        this.timeout(30_000);
        if (instance !== undefined && fixture.destroy) await fixture.destroy(instance);
        instance = undefined;
      });
      suite(() => {
        if (instance === undefined) throw new Error('no backend instance');
        return instance;
      });
    });
  }
}

/** A name unique to this test run, for databases, key prefixes and consumer groups. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

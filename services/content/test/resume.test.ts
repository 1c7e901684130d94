import { expect } from 'chai';
import {
  checkHealth,
  InMemoryEventBus,
  SERVICE_NAMES,
  Topics,
  type AnyEvent,
} from '@switchyard/shared';
import { contractSuite, silentLogger, waitFor } from '@switchyard/shared/testing';
import { inMemoryStores, loadContentConfig, startContentService } from '../src/server';
import type { RequestStore } from '../src/store';
import { processingRecord, requestStoreFixtures, type RequestStoreBackend } from './store-fixtures';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the service as replica `owner` on the backend and collects the result events. */
async function startReplica(
  backend: RequestStoreBackend,
  owner: string,
  leaseMs: number,
  wrap: (store: RequestStore) => RequestStore = (store) => store,
) {
  const bus = new InMemoryEventBus();
  const events: AnyEvent[] = [];
  await bus.subscribe({
    group: 'test',
    topics: [Topics.results],
    handler: async (event) => void events.push(event),
  });
  const config = {
    ...loadContentConfig({}),
    grpcHost: '127.0.0.1',
    grpcPort: 0,
    instanceId: owner,
    requestLeaseMs: leaseMs,
  };
  const requestStore = await backend.open({ owner, leaseMs });
  const service = await startContentService({
    config,
    bus,
    logger: silentLogger(),
    stores: { ...inMemoryStores({ owner, leaseMs }), requestStore: wrap(requestStore) },
    stopGraceMs: 500,
  });
  return {
    requestStore,
    events,
    port: service.port,
    stop: async () => (await service.stop(), await bus.close()),
  };
}

/** The store with each claim held back until `before()` resolves. */
function beforeClaims(before: () => Promise<unknown> | void) {
  return (store: RequestStore): RequestStore =>
    new Proxy(store, {
      get(target, property) {
        if (property === 'claimNext')
          return async (...args: Parameters<RequestStore['claimNext']>) => (
            await before(),
            target.claimNext(...args)
          );
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
}

/** The store with claims held back until `gate` resolves (a backlog that takes long to take back). */
function gatedClaims(gate: Promise<void>) {
  return beforeClaims(() => gate);
}

contractSuite<RequestStoreBackend>(
  'content resumes async requests',
  requestStoreFixtures,
  (backend) => {
    it('finishes, after a restart, the requests the same replica accepted before', async () => {
      const before = await backend().open({ owner: 'content-0', leaseMs: 60_000 });
      const record = processingRecord();
      await before.create(record);

      const replica = await startReplica(backend(), 'content-0', 60_000);
      try {
        await waitFor(
          async () =>
            (await replica.requestStore.get('org_a', record.requestId))?.status === 'completed',
        );
        // The bus delivers to subscribers asynchronously: the event may land just after the status.
        await waitFor(() => replica.events.some((e) => e.type === 'request.completed'));
        await sleep(100);
        expect(replica.events.filter((e) => e.type === 'request.completed')).to.have.length(1);
      } finally {
        await replica.stop();
      }
    });

    it("leaves another live replica's request alone, and takes it over once that lease expires", async () => {
      // The other replica is live while it renews its lease (however long this replica takes to
      // start on a loaded machine), and dies when it stops renewing.
      const other = await backend().open({ owner: 'content-1', leaseMs: 1000 });
      const record = processingRecord();
      await other.create(record);
      const renewals = setInterval(() => void other.renewLeases().catch(() => undefined), 100);
      let claims = 0;
      const replica = await startReplica(
        backend(),
        'content-0',
        300,
        beforeClaims(() => void claims++),
      );
      try {
        // It has looked for work (at start, then on a tick) while the other was live.
        await waitFor(() => claims >= 2, 10_000);
        expect((await replica.requestStore.get('org_a', record.requestId))?.status).to.equal(
          'processing',
        );
        clearInterval(renewals);
        await waitFor(
          async () =>
            (await replica.requestStore.get('org_a', record.requestId))?.status === 'completed',
          10_000,
        );
      } finally {
        clearInterval(renewals);
        await replica.stop();
      }
    });

    it('serves before it has taken back its backlog, then finishes every request once', async () => {
      const before = await backend().open({ owner: 'content-0', leaseMs: 60_000 });
      const records = Array.from({ length: 5 }, () => processingRecord());
      for (const record of records) await before.create(record);
      let releaseClaims!: () => void;
      const gate = new Promise<void>((resolve) => (releaseClaims = resolve));

      // With the resume before the server (as before), this start would never return.
      const replica = await startReplica(backend(), 'content-0', 60_000, gatedClaims(gate));
      try {
        expect(
          await checkHealth(`127.0.0.1:${replica.port}`, SERVICE_NAMES.ContentService),
        ).to.equal('SERVING');
        expect((await replica.requestStore.get('org_a', records[0]!.requestId))?.status).to.equal(
          'processing',
        );
        releaseClaims();
        for (const record of records) {
          await waitFor(
            async () =>
              (await replica.requestStore.get('org_a', record.requestId))?.status === 'completed',
          );
        }
        await waitFor(
          () =>
            replica.events.filter((e) => e.type === 'request.completed').length >= records.length,
        );
        await sleep(100);
        expect(replica.events.filter((e) => e.type === 'request.completed')).to.have.length(
          records.length,
        );
      } finally {
        releaseClaims();
        await replica.stop();
      }
    });
  },
);

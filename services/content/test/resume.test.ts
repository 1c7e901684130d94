import { expect } from 'chai';
import { InMemoryEventBus, Topics, type AnyEvent } from '@switchyard/shared';
import { contractSuite, silentLogger, waitFor } from '@switchyard/shared/testing';
import { loadContentConfig, startContentService } from '../src/server';
import { processingRecord, requestStoreFixtures, type RequestStoreBackend } from './store-fixtures';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the service as replica `owner` on the backend and collects the result events. */
async function startReplica(backend: RequestStoreBackend, owner: string, leaseMs: number) {
  const bus = new InMemoryEventBus();
  const events: AnyEvent[] = [];
  await bus.subscribe({ group: 'test', topics: [Topics.results], handler: async (event) => void events.push(event) });
  const config = { ...loadContentConfig({}), grpcHost: '127.0.0.1', grpcPort: 0, instanceId: owner, requestLeaseMs: leaseMs };
  const requestStore = await backend.open({ owner, leaseMs });
  const service = await startContentService({ config, bus, logger: silentLogger(), requestStore, stopGraceMs: 500 });
  return { requestStore, events, stop: async () => (await service.stop(), await bus.close()) };
}

contractSuite<RequestStoreBackend>('content resumes async requests', requestStoreFixtures, (backend) => {
  it('finishes, after a restart, the requests the same replica accepted before', async () => {
    const before = await backend().open({ owner: 'content-0', leaseMs: 60_000 });
    const record = processingRecord();
    await before.create(record);

    const replica = await startReplica(backend(), 'content-0', 60_000);
    try {
      await waitFor(async () => (await replica.requestStore.get('org_a', record.requestId))?.status === 'completed');
      // The bus delivers to subscribers asynchronously: the event may land just after the status.
      await waitFor(() => replica.events.some((e) => e.type === 'request.completed'));
      await sleep(100);
      expect(replica.events.filter((e) => e.type === 'request.completed')).to.have.length(1);
    } finally {
      await replica.stop();
    }
  });

  it('leaves another live replica\'s request alone, and takes it over once that lease expires', async () => {
    // The other replica's lease outlives this replica's start even on a loaded machine.
    const other = await backend().open({ owner: 'content-1', leaseMs: 3000 });
    const record = processingRecord();
    await other.create(record);

    const replica = await startReplica(backend(), 'content-0', 300);
    try {
      await sleep(150);
      expect((await replica.requestStore.get('org_a', record.requestId))?.status).to.equal('processing');
      await waitFor(async () => (await replica.requestStore.get('org_a', record.requestId))?.status === 'completed', 10_000);
    } finally {
      await replica.stop();
    }
  });
});

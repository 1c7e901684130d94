import { contractSuite } from '@switchyard/shared/testing';
import { expect } from '../chai';
import { storeBackends, type StoreWorld } from '../store-fixtures';

contractSuite<StoreWorld>('ProcessedEvents contract', storeBackends, (world) => {
  it('remembers handled event ids, idempotently', async () => {
    const { processedEvents } = world().stores;
    expect(await processedEvents.has('org_a', 'evt_1')).to.equal(false);
    await processedEvents.mark('org_a', 'evt_1');
    await processedEvents.mark('org_a', 'evt_1');
    expect(await processedEvents.has('org_a', 'evt_1')).to.equal(true);
  });

  it('keeps organizations apart', async () => {
    await world().stores.processedEvents.mark('org_a', 'evt_1');
    expect(await world().stores.processedEvents.has('org_b', 'evt_1')).to.equal(false);
  });

  it('is visible from a second store instance on the same database (restart)', async () => {
    await world().stores.processedEvents.mark('org_a', 'evt_2');
    const reopened = await world().reopen();
    expect(await reopened.processedEvents.has('org_a', 'evt_2')).to.equal(true);
  });
});

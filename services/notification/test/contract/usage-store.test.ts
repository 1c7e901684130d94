import { contractSuite } from '@switchyard/shared/testing';
import { expect } from '../chai';
import { storeBackends, type StoreWorld } from '../store-fixtures';

contractSuite<StoreWorld>('UsageStore contract', storeBackends, (world) => {
  it('counts each usage event id once', async () => {
    const { usage } = world().stores;
    expect(await usage.add('org_a', '2026-11', 'evt_1', 100)).to.deep.equal({ total: 100, counted: true });
    expect(await usage.add('org_a', '2026-11', 'evt_2', 50)).to.deep.equal({ total: 150, counted: true });
    expect(await usage.add('org_a', '2026-11', 'evt_1', 100)).to.deep.equal({ total: 150, counted: false });
    expect(await usage.total('org_a', '2026-11')).to.equal(150);
  });

  it('keeps organizations and periods apart', async () => {
    const { usage } = world().stores;
    await usage.add('org_a', '2026-11', 'evt_1', 100);
    await usage.add('org_b', '2026-11', 'evt_1', 7);
    await usage.add('org_a', '2026-12', 'evt_3', 9);
    expect(await usage.total('org_a', '2026-11')).to.equal(100);
    expect(await usage.total('org_b', '2026-11')).to.equal(7);
    expect(await usage.total('org_a', '2026-12')).to.equal(9);
    expect(await usage.total('org_c', '2026-11')).to.equal(0);
    await usage.markNotified('org_a', '2026-11', 0.9);
    expect(await usage.notifiedShares('org_b', '2026-11')).to.deep.equal([]);
    expect(await usage.notifiedShares('org_a', '2026-12')).to.deep.equal([]);
  });

  it('records a threshold once per organization, period and share', async () => {
    const { usage } = world().stores;
    await usage.markNotified('org_a', '2026-11', 0.9);
    await usage.markNotified('org_a', '2026-11', 0.9);
    await usage.markNotified('org_a', '2026-11', 1);
    expect((await usage.notifiedShares('org_a', '2026-11')).sort()).to.deep.equal([0.9, 1]);
  });

  it('is visible from a second store instance on the same database (restart)', async () => {
    await world().stores.usage.add('org_a', '2026-11', 'evt_1', 40);
    await world().stores.usage.markNotified('org_a', '2026-11', 0.5);
    const reopened = await world().reopen();
    expect(await reopened.usage.add('org_a', '2026-11', 'evt_1', 40)).to.deep.equal({ total: 40, counted: false });
    expect(await reopened.usage.notifiedShares('org_a', '2026-11')).to.deep.equal([0.5]);
  });
});

import { contractSuite } from '@switchyard/shared/testing';
import { rejectedEventKey, type RejectedEvent } from '../../src/store';
import { expect } from '../chai';
import { storeBackends, type StoreWorld } from '../store-fixtures';

function rejected(eventId: string, reason = 'schema', organization = 'org_a'): RejectedEvent {
  return { organization, eventId, reason, rejectedAt: '2026-11-29T06:00:00.000Z' };
}

contractSuite<StoreWorld>('RejectedEventStore contract', storeBackends, (world) => {
  it('says which events were dead-lettered, per organization', async () => {
    const { rejectedEvents } = world().stores;
    expect(await rejectedEvents.recorded([])).to.deep.equal(new Set());
    await rejectedEvents.record([rejected('evt_1'), rejected('evt_2', 'schema', 'org_b')]);
    const asked = [
      { organization: 'org_a', eventId: 'evt_1' },
      { organization: 'org_a', eventId: 'evt_2' },
      { organization: 'org_b', eventId: 'evt_2' },
      { organization: 'org_a', eventId: 'evt_3' },
    ];
    expect(await rejectedEvents.recorded(asked)).to.deep.equal(
      new Set([rejectedEventKey('org_a', 'evt_1'), rejectedEventKey('org_b', 'evt_2')]),
    );
  });

  it('records an event again, also from two instances at once, without an error', async () => {
    const other = await world().reopen();
    await world().stores.rejectedEvents.record([rejected('evt_1', 'first')]);
    await Promise.all([
      other.rejectedEvents.record([rejected('evt_1', 'again'), rejected('evt_4')]),
      world().stores.rejectedEvents.record([rejected('evt_4'), rejected('evt_1', 'third')]),
    ]);
    const asked = ['evt_1', 'evt_4'].map((eventId) => ({ organization: 'org_a', eventId }));
    expect((await other.rejectedEvents.recorded(asked)).size).to.equal(2);
  });
});

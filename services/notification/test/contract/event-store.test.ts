import { contractSuite } from '@switchyard/shared/testing';
import { DEFAULT_EVENT_RETENTION_MS, type EventRecord } from '../../src/store';
import { expect } from '../chai';
import { storeBackends, type StoreWorld } from '../store-fixtures';

const NOW = Date.now();
const at = (secondsAgo: number) => new Date(NOW - secondsAgo * 1000).toISOString();

function event(id: string, overrides: Partial<EventRecord> = {}): EventRecord {
  return {
    organization: 'org_a',
    id,
    type: 'order.shipped',
    key: 'order-1',
    schemaVersion: 1,
    data: { orderId: 'o-1', lines: [{ sku: 'a', qty: 2 }] },
    occurredAt: at(60),
    receivedAt: at(50),
    deliveries: 2,
    ...overrides,
  };
}

const ids = (events: EventRecord[]) => events.map((e) => e.id);

contractSuite<StoreWorld>('EventStore contract', storeBackends, (world) => {
  it('reads back what it recorded, per organization, newest received first', async () => {
    const { events } = world().stores;
    const invoice: EventRecord = {
      organization: 'org_a',
      id: 'evt_invoice',
      type: 'invoice_paid',
      data: { invoiceId: 'inv_1', amount: 12.5, currency: 'EUR' },
      occurredAt: at(30),
      receivedAt: at(30),
      deliveries: 0,
    };
    await events.record([event('evt_1'), invoice, event('evt_b', { organization: 'org_b' })]);
    await events.record([event('evt_2', { receivedAt: at(10) })]);
    expect(await events.get('org_a', 'evt_1')).to.deep.equal(event('evt_1'));
    expect(await events.get('org_a', 'evt_invoice')).to.deep.equal(invoice);
    expect(await events.get('org_a', 'evt_b'), "another organization's").to.equal(undefined);
    expect(await events.get('org_a', 'evt_unknown')).to.equal(undefined);
    expect(ids(await events.list('org_a', { limit: 10 }))).to.deep.equal([
      'evt_2',
      'evt_invoice',
      'evt_1',
    ]);
    expect(ids(await events.list('org_b', { limit: 10 }))).to.deep.equal(['evt_b']);
    expect(await events.list('org_c', { limit: 10 })).to.deep.equal([]);
    await events.record([]);
  });

  it('records an event once: again, also from two instances at once, keeps the first record', async () => {
    const other = await world().reopen();
    await world().stores.events.record([event('evt_1')]);
    await Promise.all([
      other.events.record([event('evt_1', { deliveries: 5, receivedAt: at(1) }), event('evt_2')]),
      world().stores.events.record([event('evt_2', { deliveries: 7 }), event('evt_1')]),
    ]);
    expect(await other.events.get('org_a', 'evt_1')).to.deep.equal(event('evt_1'));
    const listed = await other.events.list('org_a', { limit: 10 });
    expect(listed.map((e) => e.id).sort()).to.deep.equal(['evt_1', 'evt_2']);
  });

  it('filters by exact type, type prefix, key and a window of received times', async () => {
    const { events } = world().stores;
    await events.record([
      event('evt_shipped', { receivedAt: at(40) }),
      event('evt_paid', { type: 'order.paid', key: 'order-2', receivedAt: at(30) }),
      event('evt_deep', { type: 'order.line.added', key: 'order-2', receivedAt: at(20) }),
      event('evt_orders', { type: 'orders.exported', receivedAt: at(10) }),
      event('evt_invoice', { type: 'invoice_paid', receivedAt: at(5) }),
    ]);
    const list = async (filter: Parameters<typeof events.list>[1]) =>
      ids(await events.list('org_a', filter));
    expect(await list({ type: 'order.shipped', limit: 10 })).to.deep.equal(['evt_shipped']);
    expect(await list({ type: 'order.*', limit: 10 })).to.deep.equal([
      'evt_deep',
      'evt_paid',
      'evt_shipped',
    ]);
    expect(await list({ type: 'order.line.*', limit: 10 })).to.deep.equal(['evt_deep']);
    expect(await list({ key: 'order-2', limit: 10 })).to.deep.equal(['evt_deep', 'evt_paid']);
    expect(await list({ type: 'order.paid', key: 'order-2', limit: 10 })).to.deep.equal([
      'evt_paid',
    ]);
    expect(await list({ since: at(30), until: at(10), limit: 10 })).to.deep.equal([
      'evt_deep',
      'evt_paid',
    ]);
    expect(await list({ type: 'ticket.*', limit: 10 })).to.deep.equal([]);
  });

  it('pages newest first by (received time, id): every event once, ties on time by id', async () => {
    const { events } = world().stores;
    const recorded = [
      event('evt_a', { receivedAt: at(30) }),
      event('evt_b', { receivedAt: at(20) }),
      event('evt_c', { receivedAt: at(20) }),
      event('evt_d', { receivedAt: at(20) }),
      event('evt_e', { receivedAt: at(10) }),
    ];
    await events.record(recorded);
    const seen: string[] = [];
    let after: { receivedAt: string; id: string } | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await events.list('org_a', { limit: 2, ...(after && { after }) });
      if (page.length === 0) break;
      seen.push(...ids(page));
      const last = page[page.length - 1]!;
      after = { receivedAt: last.receivedAt, id: last.id };
    }
    expect(seen).to.deep.equal(['evt_e', 'evt_d', 'evt_c', 'evt_b', 'evt_a']);
  });

  it('keeps an event for the retention only', async () => {
    const { events } = world().stores;
    const past = new Date(NOW - DEFAULT_EVENT_RETENTION_MS - 60_000).toISOString();
    await events.record([event('evt_old', { receivedAt: past }), event('evt_new')]);
    expect(await events.get('org_a', 'evt_old')).to.equal(undefined);
    expect(ids(await events.list('org_a', { limit: 10 }))).to.deep.equal(['evt_new']);
  });
});

import { contractSuite } from '@switchyard/shared/testing';
import type { EventTypeRecord } from '../../src/store';
import { expect } from '../chai';
import { storeBackends, type StoreWorld } from '../store-fixtures';

const ORDER_SCHEMA = {
  type: 'object',
  required: ['orderId'],
  properties: { orderId: { type: 'string' }, $defs: { type: 'object' } },
  $defs: { money: { type: 'number', minimum: 0 } },
};

function orderShipped(organization = 'org_a'): EventTypeRecord {
  return {
    organization,
    name: 'order.shipped',
    description: 'An order left the warehouse',
    versions: [{ version: 1, schema: ORDER_SCHEMA, createdAt: '2026-11-01T00:00:00.000Z' }],
    createdAt: '2026-11-01T00:00:00.000Z',
    updatedAt: '2026-11-01T00:00:00.000Z',
  };
}

contractSuite<StoreWorld>('EventTypeStore contract', storeBackends, (world) => {
  it('creates a type once per organization and reads it back as stored', async () => {
    const { eventTypes } = world().stores;
    expect(await eventTypes.create(orderShipped())).to.equal(true);
    expect(await eventTypes.create({ ...orderShipped(), description: 'again' })).to.equal(false);
    expect(await eventTypes.create(orderShipped('org_b'))).to.equal(true);
    expect(await eventTypes.get('org_a', 'order.shipped')).to.deep.equal(orderShipped());
    expect(await eventTypes.get('org_c', 'order.shipped')).to.equal(undefined);
  });

  it('lists an organization its own types by name', async () => {
    const { eventTypes } = world().stores;
    await eventTypes.create({ ...orderShipped(), name: 'ticket.refunded' });
    await eventTypes.create(orderShipped());
    await eventTypes.create({ ...orderShipped('org_b'), name: 'invoice.voided' });
    const names = (await eventTypes.list('org_a')).map((t) => t.name);
    expect(names).to.deep.equal(['order.shipped', 'ticket.refunded']);
  });

  it('appends versions in order; a stale or repeated version number is refused', async () => {
    const { eventTypes } = world().stores;
    await eventTypes.create(orderShipped());
    const v2 = { version: 2, schema: { type: 'object' }, createdAt: '2026-11-02T00:00:00.000Z' };
    const updated = await eventTypes.addVersion('org_a', 'order.shipped', v2, 'Shipped');
    expect(updated!.versions.map((v) => v.version)).to.deep.equal([1, 2]);
    expect(updated!.versions[0]!.schema).to.deep.equal(ORDER_SCHEMA);
    expect(updated!.description).to.equal('Shipped');
    expect(updated!.updatedAt).to.equal(v2.createdAt);
    expect(await eventTypes.addVersion('org_a', 'order.shipped', v2)).to.equal(undefined);
    expect(await eventTypes.addVersion('org_a', 'order.missing', v2)).to.equal(undefined);
    expect((await eventTypes.get('org_a', 'order.shipped'))!.versions).to.have.length(2);
  });

  it('lets one of two concurrent updates from two instances take the next version', async () => {
    const other = await world().reopen();
    await world().stores.eventTypes.create(orderShipped());
    const next = (n: number) => ({ version: 2, schema: { maxProperties: n }, createdAt: 'now' });
    const results = await Promise.all([
      world().stores.eventTypes.addVersion('org_a', 'order.shipped', next(1)),
      other.eventTypes.addVersion('org_a', 'order.shipped', next(2)),
    ]);
    expect(results.filter((r) => r !== undefined)).to.have.length(1);
    expect((await other.eventTypes.get('org_a', 'order.shipped'))!.versions).to.have.length(2);
  });

  it('marks a type deleted once; it stays readable and takes no new version', async () => {
    const { eventTypes } = world().stores;
    await eventTypes.create(orderShipped());
    const deleted = await eventTypes.markDeleted(
      'org_a',
      'order.shipped',
      '2026-11-03T00:00:00.000Z',
    );
    expect(deleted!.deletedAt).to.equal('2026-11-03T00:00:00.000Z');
    await eventTypes.markDeleted('org_a', 'order.shipped', '2026-11-04T00:00:00.000Z');
    const read = await eventTypes.get('org_a', 'order.shipped');
    expect(read!.deletedAt).to.equal('2026-11-03T00:00:00.000Z');
    expect(read!.versions[0]!.schema).to.deep.equal(ORDER_SCHEMA);
    const v2 = { version: 2, schema: {}, createdAt: 'now' };
    expect(await eventTypes.addVersion('org_a', 'order.shipped', v2)).to.equal(undefined);
    expect(await eventTypes.markDeleted('org_a', 'order.missing', 'now')).to.equal(undefined);
    expect(await eventTypes.create(orderShipped())).to.equal(false);
  });

  it('is visible from a second store instance on the same database (restart)', async () => {
    await world().stores.eventTypes.create(orderShipped());
    const reopened = await world().reopen();
    expect(await reopened.eventTypes.get('org_a', 'order.shipped')).to.deep.equal(orderShipped());
  });
});

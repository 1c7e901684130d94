import { expect } from 'chai';
import { uniqueName } from '@switchyard/shared/testing';
import type { MeshTarget } from './target';

const ORDER_SHIPPED = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['orderId', 'country'],
  properties: {
    orderId: { type: 'string', minLength: 1 },
    country: { type: 'string', pattern: '^[A-Z]{2}$' },
    items: { type: 'array', prefixItems: [{ type: 'string' }] },
  },
  additionalProperties: false,
};

export function describeEventTypes(target: MeshTarget): void {
  const { api } = target;
  describe(`${target.name}: event types of an organization`, function () {
    this.timeout(120_000);

    it('creates a type, lists it beside the built-in events and reads it back', async () => {
      const name = uniqueName('order.shipped');
      const created = await api('/api/v2/event-types', {
        body: { name, description: 'An order left the warehouse', schema: ORDER_SHIPPED },
      });
      expect(created.status, created.text).to.equal(201);
      expect(created.body).to.include({ name, version: 1, builtIn: false, deletedAt: null });
      expect(created.body.schema).to.deep.equal(ORDER_SHIPPED);

      const list = await api('/api/v2/event-types');
      expect(list.status).to.equal(200);
      const own = list.body.eventTypes.find((t: { name: string }) => t.name === name);
      expect(own).to.include({ description: 'An order left the warehouse', version: 1 });
      const builtIns = list.body.eventTypes.filter((t: { builtIn: boolean }) => t.builtIn);
      expect(builtIns.map((t: { name: string }) => t.name)).to.include.members([
        'invoice_paid',
        'data_updated',
        'request_completed',
      ]);

      const read = await api(`/api/v2/event-types/${name}`);
      expect(read.status).to.equal(200);
      expect(read.body.versions).to.deep.equal([
        { version: 1, schema: ORDER_SHIPPED, example: null, createdAt: created.body.createdAt },
      ]);
      const builtIn = await api('/api/v2/event-types/invoice_paid');
      expect(builtIn.body).to.include({ name: 'invoice_paid', builtIn: true, schema: null });
    });

    it('refuses a bad schema with 400 naming the problem', async () => {
      const cases: Array<[object, RegExp, string]> = [
        [{ type: 'objekt' }, /type/, '/schema/type'],
        [{ type: 'object', requried: ['a'] }, /unknown keyword: "requried"/, '/schema'],
        [{ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }, /missing/, '/schema'],
        [{ $schema: 'http://json-schema.org/draft-07/schema#' }, /2020-12/, '/schema/$schema'],
        [{ $ref: 'https://example.com/remote.json' }, /remote\.json/, '/schema'],
      ];
      for (const [schema, message, field] of cases) {
        const res = await api('/api/v2/event-types', {
          body: { name: uniqueName('order.bad'), schema },
        });
        expect(res.status, JSON.stringify(schema)).to.equal(400);
        expect(res.body.error.code).to.equal('invalid_request');
        expect(res.body.error.message).to.match(message);
        expect(res.body.error.details.map((d: { field: string }) => d.field)).to.include(field);
      }
    });

    it('refuses names that are not dotted lowercase, built-in events and taken names', async () => {
      for (const name of ['Order.Shipped', 'order', 'order..shipped', 'order shipped']) {
        const res = await api('/api/v2/event-types', {
          body: { name, schema: { type: 'object' } },
        });
        expect(res.status, name).to.equal(400);
      }
      for (const name of ['invoice.paid', 'data.updated']) {
        const res = await api('/api/v2/event-types', {
          body: { name, schema: { type: 'object' } },
        });
        expect(res.status, name).to.equal(409);
        expect(res.body.error.message).to.match(/built-in/);
      }
      const name = uniqueName('ticket.refunded');
      const body = { name, schema: { type: 'object' } };
      expect((await api('/api/v2/event-types', { body })).status).to.equal(201);
      expect((await api('/api/v2/event-types', { body })).status).to.equal(409);
    });

    it('publishes new versions with PUT; the old ones stay readable', async () => {
      const name = uniqueName('order.shipped');
      await api('/api/v2/event-types', { body: { name, schema: ORDER_SHIPPED } });
      const v2Schema = { ...ORDER_SHIPPED, required: ['orderId'] };
      const v2 = await api(`/api/v2/event-types/${name}`, {
        method: 'PUT',
        body: { schema: v2Schema, description: 'Shipped, country optional' },
      });
      expect(v2.status, v2.text).to.equal(200);
      expect(v2.body).to.include({ version: 2, description: 'Shipped, country optional' });
      expect(v2.body.schema).to.deep.equal(v2Schema);
      expect(v2.body.versions.map((v: { version: number }) => v.version)).to.deep.equal([1, 2]);
      expect(v2.body.versions[0].schema).to.deep.equal(ORDER_SHIPPED);

      const bad = await api(`/api/v2/event-types/${name}`, {
        method: 'PUT',
        body: { schema: { type: 'object', minProperties: -1 } },
      });
      expect(bad.status).to.equal(400);
      expect(bad.body.error.details[0].field).to.equal('/schema/minProperties');
      expect((await api(`/api/v2/event-types/${name}`)).body.version).to.equal(2);

      const unknown = await api(`/api/v2/event-types/${uniqueName('order.none')}`, {
        method: 'PUT',
        body: { schema: { type: 'object' } },
      });
      expect(unknown.status).to.equal(404);
    });

    it('deletes a type: no longer listed, still readable, no new version, name not reused', async () => {
      const name = uniqueName('order.cancelled');
      await api('/api/v2/event-types', { body: { name, schema: { type: 'object' } } });
      const removed = await api(`/api/v2/event-types/${name}`, { method: 'DELETE' });
      expect(removed.status).to.equal(204);
      const list = await api('/api/v2/event-types');
      expect(list.body.eventTypes.map((t: { name: string }) => t.name)).to.not.include(name);
      const read = await api(`/api/v2/event-types/${name}`);
      expect(read.status).to.equal(200);
      expect(read.body.deletedAt).to.be.a('string');
      const put = await api(`/api/v2/event-types/${name}`, {
        method: 'PUT',
        body: { schema: { type: 'object' } },
      });
      expect(put.status).to.equal(409);
      const again = await api('/api/v2/event-types', {
        body: { name, schema: { type: 'object' } },
      });
      expect(again.status).to.equal(409);
      expect((await api('/api/v2/event-types/invoice_paid', { method: 'DELETE' })).status).to.equal(
        409,
      );
      expect(
        (await api(`/api/v2/event-types/${uniqueName('order.none')}`, { method: 'DELETE' })).status,
      ).to.equal(404);
    });

    it('keeps organizations apart and is in the OpenAPI document', async () => {
      const name = uniqueName('order.private');
      await api('/api/v2/event-types', { body: { name, schema: { type: 'object' } } });
      const admin = { authorization: `Bearer ${await target.adminToken()}`, key: null };
      const id = uniqueName('evt').replace(/_/g, '-'); // an organization id is a slug
      const org = await api('/api/v2/admin/organizations', {
        ...admin,
        body: { id, name: 'Other', monthlyTokenQuota: 1000 },
      });
      expect(org.status, org.text).to.equal(201);
      const key = (
        await api(`/api/v2/admin/organizations/${id}/keys`, { ...admin, body: { name: 'e2e' } })
      ).body.key as string;
      expect((await api(`/api/v2/event-types/${name}`, { key })).status).to.equal(404);
      const theirs = await api('/api/v2/event-types', { key });
      expect(theirs.body.eventTypes.map((t: { name: string }) => t.name)).to.not.include(name);
      // Their own type of the same name is theirs alone.
      expect(
        (await api('/api/v2/event-types', { key, body: { name, schema: { type: 'string' } } }))
          .status,
      ).to.equal(201);
      expect((await api(`/api/v2/event-types/${name}`)).body.schema).to.deep.equal({
        type: 'object',
      });

      const openapi = await api('/openapi.json', { key: null });
      expect(Object.keys(openapi.body.paths)).to.include.members([
        '/api/v2/event-types',
        '/api/v2/event-types/{name}',
      ]);
    });
  });
}

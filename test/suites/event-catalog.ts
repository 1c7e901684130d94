import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { uniqueName, waitFor } from '@switchyard/shared/testing';
import { WebhookReceiver } from '../support/receiver';
import { lintOpenApi } from '../support/redocly';
import type { MeshTarget } from './target';

const ORDER_SHIPPED = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['orderId', 'country'],
  properties: {
    orderId: { type: 'string', minLength: 1 },
    country: { $ref: '#/$defs/country' },
  },
  $defs: { country: { type: 'string', pattern: '^[A-Z]{2}$' } },
};

interface WebhookOperation {
  post: {
    requestBody: { content: { 'application/json': { schema: object; example?: object } } };
  };
}

export function describeEventCatalog(target: MeshTarget): void {
  const { api } = target;
  /**
   * The webhook catalog through the gateway: event types take an example checked against their
   * schema, the organization's OpenAPI 3.1 document lists every event with its schema and
   * example (checked by Ajv and Redocly, not by us), and test events send a type's example.
   */
  describe(`${target.name}: the webhook catalog`, function () {
    this.timeout(120_000);

    it('refuses an example that does not match the schema, at each failing place', async () => {
      const res = await api('/api/v2/event-types', {
        body: {
          name: `${uniqueName('cat')}.order.shipped`,
          schema: ORDER_SHIPPED,
          example: { orderId: '', country: 'germany' },
        },
      });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).to.deep.equal([
        '/example/country',
        '/example/orderId',
      ]);
      const reserved = await api('/api/v2/event-types', {
        body: { name: 'openapi.json', schema: { type: 'object' } },
      });
      expect(reserved.status).to.equal(409);
    });

    it('lists every event with its schema and example in an OpenAPI 3.1 webhooks section', async () => {
      const ns = uniqueName('cat');
      const name = `${ns}.order.shipped`;
      const created = await api('/api/v2/event-types', {
        body: {
          name,
          description: 'An order left the warehouse',
          schema: ORDER_SHIPPED,
          example: { orderId: 'o-1', country: 'DE' },
        },
      });
      expect(created.status, created.text).to.equal(201);
      expect(created.body.example).to.deep.equal({ orderId: 'o-1', country: 'DE' });
      const updated = await api(`/api/v2/event-types/${name}`, {
        method: 'PUT',
        body: { schema: ORDER_SHIPPED, example: { orderId: 'o-1042', country: 'AT' } },
      });
      expect(updated.status, updated.text).to.equal(200);
      expect(updated.body.versions.map((v: { example: object }) => v.example)).to.deep.equal([
        { orderId: 'o-1', country: 'DE' },
        { orderId: 'o-1042', country: 'AT' },
      ]);
      const deleted = `${ns}.order.lost`;
      await api('/api/v2/event-types', { body: { name: deleted, schema: { type: 'object' } } });
      await api(`/api/v2/event-types/${deleted}`, { method: 'DELETE' });

      const res = await api('/api/v2/event-types/openapi.json');
      expect(res.status, res.text).to.equal(200);
      const catalog = res.body as { openapi: string; webhooks: Record<string, WebhookOperation> };
      expect(catalog.openapi).to.equal('3.1.0');
      expect(Object.keys(catalog.webhooks)).to.include.members([
        'invoice_paid',
        'data_updated',
        'request_completed',
        'webhook_disabled',
        name,
      ]);
      expect(Object.keys(catalog.webhooks)).not.to.include(deleted);
      const own = catalog.webhooks[name]!.post.requestBody.content['application/json'];
      expect(own.example).to.deep.include({ event: name, schemaVersion: 2 });
      expect((own.example as { data: object }).data).to.deep.equal({
        orderId: 'o-1042',
        country: 'AT',
      });

      // Every example is valid under its schema ($refs into the type's component resolve).
      const ajv = new Ajv2020({ allErrors: true, strict: false });
      addFormats(ajv);
      ajv.addSchema(catalog, 'catalog');
      const pointer = (event: string) =>
        `catalog#/webhooks/${event.replace(/\//g, '~1')}/post/requestBody/content/application~1json/schema`;
      for (const [event, operation] of Object.entries(catalog.webhooks)) {
        const { example } = operation.post.requestBody.content['application/json'];
        if (example === undefined) continue;
        const validate = ajv.compile({ $ref: pointer(event) });
        expect(validate(example), `${event}: ${ajv.errorsText(validate.errors)}`).to.equal(true);
      }
      const ownBody = ajv.compile({ $ref: pointer(name) });
      const bad = { ...own.example, data: { orderId: 'o-2', country: 'de' } };
      expect(ownBody(bad)).to.equal(false);
      expect(ownBody.errors![0]!.instancePath).to.equal('/data/country');

      const report = await lintOpenApi(catalog);
      expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).to.deep.equal([]);
      // Without a key, the catalog is not served.
      const anonymous = await api('/api/v2/event-types/openapi.json', { key: null });
      expect(anonymous.status).to.equal(401);
    });

    it("sends a type's example as the test event of a webhook subscribed by prefix", async () => {
      const ns = uniqueName('cat');
      const name = `${ns}.order.shipped`;
      await api('/api/v2/event-types', {
        body: { name, schema: ORDER_SHIPPED, example: { orderId: 'o-7', country: 'FR' } },
      });
      const receiver = await new WebhookReceiver().start();
      try {
        const webhook = await api('/api/webhooks', {
          body: { events: [`${ns}.order.*`], url: receiver.url },
        });
        expect(webhook.status, webhook.text).to.equal(201);
        const sent = await api(`/api/webhooks/${webhook.body.id}/test`, { body: { event: name } });
        expect(sent.status, sent.text).to.equal(200);
        const call = await waitFor(() => receiver.calls[0], 30_000);
        expect(call.body).to.deep.include({
          event: name,
          schemaVersion: 1,
          key: null,
          test: true,
          data: { orderId: 'o-7', country: 'FR' },
        });
        // A prefix is not an event to send.
        const prefix = await api(`/api/webhooks/${webhook.body.id}/test`, { body: {} });
        expect(prefix.status).to.equal(400);
        await api(`/api/webhooks/${webhook.body.id}`, { method: 'DELETE' });
      } finally {
        await receiver.stop();
      }
    });
  });
}

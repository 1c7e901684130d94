import { expect } from 'chai';
import { waitFor } from '@switchyard/shared/testing';
import { expectAtEveryWidth, expectFocusOn, requireBrowser } from '../support/browser';
import { consoleOrganization, signIn, trackedPages } from '../support/console';
import { WebhookReceiver } from '../support/receiver';

const SHIPPED_V1 = {
  type: 'object',
  required: ['orderId'],
  properties: { orderId: { type: 'string' } },
};

describe('e2e: the console events page, in Chromium', function () {
  this.timeout(90_000);
  const pages = trackedPages();

  before(function () {
    requireBrowser.call(this);
  });

  it("defines an event type (the API's schema errors at their field), publishes a version, finds an event's deliveries and deletes the type", async () => {
    const org = await consoleOrganization();
    const receiver = await new WebhookReceiver().start();
    try {
      const page = await pages.open(org.gatewayUrl);
      await signIn(page, org.key);
      await page.getByRole('link', { name: 'Events' }).click();
      await page.getByRole('heading', { name: 'Events', level: 1 }).waitFor();
      // The built-in events beside the organization's own (none yet), read-only.
      const types = page.getByTestId('event-types-table');
      const invoicePaid = types.locator('tr', { hasText: 'invoice_paid' });
      await invoicePaid.getByText('Built in').waitFor();
      expect(await invoicePaid.getByRole('button', { name: /^Delete/ }).count()).to.equal(0);

      // A name checked in the browser; a schema with a typo refused by the API at its field,
      // with the place in the schema and the API's words.
      await page.getByRole('button', { name: 'Define event type' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Name').fill('Order.Shipped');
      const typo = { type: 'object', properties: { orderId: { type: 'strnig' } } };
      await dialog
        .getByLabel('Schema of the data (JSON Schema 2020-12)')
        .fill(JSON.stringify(typo));
      await dialog.getByRole('button', { name: 'Create type' }).click();
      expect(await dialog.locator('#type-name-error').textContent()).to.equal(
        'Use dotted lower-case words, e.g. order.shipped.',
      );
      await dialog.getByLabel('Name').fill('order.shipped');
      await dialog.getByRole('button', { name: 'Create type' }).click();
      await dialog.locator('#type-schema-error').waitFor();
      const refusal = await org.api('/api/v2/event-types', {
        body: { name: 'order.refused', schema: typo },
      });
      expect(refusal.status).to.equal(400);
      const [detail] = refusal.body.error.details as Array<{ field: string; reason: string }>;
      expect(detail!.field).to.match(/^\/schema\/properties\/orderId\/type/);
      // The API's words name the place in the schema (said once, not twice).
      const shown = (await dialog.locator('#type-schema-error').textContent())!;
      expect(detail!.reason).to.include('/properties/orderId/type');
      expect(shown).to.include(detail!.reason);
      expect(shown.split('/properties/orderId/type').length - 1).to.equal(
        refusal.body.error.details.length,
      );
      await expectFocusOn(page, 'type-schema');
      await expectAtEveryWidth(page, 'the event type dialog with an error', 'events-error');
      await dialog
        .getByLabel('Schema of the data (JSON Schema 2020-12)')
        .fill(JSON.stringify(SHIPPED_V1));
      await dialog.locator('#type-schema-error').waitFor({ state: 'detached' });
      await dialog.getByLabel('Description').fill('An order left the warehouse');
      await dialog.getByRole('button', { name: 'Create type' }).click();
      const shipped = types.locator('tr', { hasText: 'order.shipped' });
      await shipped.getByText('Active').waitFor();
      await page.getByTestId('type-schema').getByText('"orderId"', { exact: false }).waitFor();

      // Version 2 requires the country; version 1 stays readable.
      await page.getByRole('button', { name: 'Publish a new version' }).click();
      const v2 = {
        ...SHIPPED_V1,
        required: ['orderId', 'country'],
        properties: { ...SHIPPED_V1.properties, country: { type: 'string' } },
      };
      await dialog.getByLabel('Schema of the data (JSON Schema 2020-12)').fill(JSON.stringify(v2));
      await dialog
        .getByLabel('Example of the data (optional)')
        .fill('{"orderId": "o-1", "country": "DE"}');
      await dialog.getByRole('button', { name: 'Publish version' }).click();
      await page.getByText('order.shipped version 2 saved').waitFor();
      // The toast first, then the list and the type as read again.
      await shipped.locator('td').nth(1).getByText('2', { exact: true }).waitFor();
      await page.getByTestId('type-schema').getByText('"country"', { exact: false }).waitFor();
      await page.getByLabel('Version', { exact: true }).selectOption('1');
      expect(await page.getByTestId('type-schema').textContent()).not.to.include('"country"');
      const read = (await org.api('/api/v2/event-types/order.shipped')).body;
      expect(read.versions.map((v: { version: number }) => v.version)).to.deep.equal([1, 2]);
      expect(read.versions[1].schema).to.deep.equal(v2);

      // An event published to an endpoint subscribed to the type: its delivery, found by its id.
      const webhook = await org.api('/api/webhooks', {
        body: { events: ['order.*'], url: receiver.url },
      });
      expect(webhook.status, webhook.text).to.equal(201);
      const published = await org.api('/api/v2/events', {
        body: {
          type: 'order.shipped',
          id: 'evt_console_1',
          data: { orderId: 'o-1', country: 'DE' },
        },
      });
      expect(published.status, published.text).to.equal(202);
      await waitFor(() => receiver.calls[0], 10_000);
      await page.getByLabel('Event id').fill('evt_console_1');
      await page.getByRole('button', { name: 'Find deliveries' }).click();
      const delivery = page
        .getByTestId('event-deliveries')
        .locator('tr', { hasText: receiver.url });
      await delivery.getByText('Succeeded').waitFor();
      expect(await delivery.textContent())
        .to.include('order.shipped')
        .and.include('200');
      await expectAtEveryWidth(page, 'the events page', 'events');

      // Deleted: no new events (404), the schemas still readable.
      await shipped.getByRole('button', { name: 'Delete order.shipped' }).click();
      await dialog.getByRole('button', { name: 'Delete event type' }).click();
      // Gone from the list of types that take events; still shown, as deleted, with its versions.
      await shipped.waitFor({ state: 'detached' });
      await page.getByTestId('type-deleted').waitFor();
      const refused = await org.api('/api/v2/events', {
        body: { type: 'order.shipped', data: { orderId: 'o-2', country: 'DE' } },
      });
      expect(refused.status).to.equal(404);
      expect((await org.api('/api/v2/event-types/order.shipped')).body.versions).to.have.length(2);
    } finally {
      await receiver.stop();
    }
  });

  it("lists recent events newest first with their deliveries, filters and pages them, and opens one's deliveries", async () => {
    const org = await consoleOrganization();
    const receiver = await new WebhookReceiver().start();
    try {
      for (const name of ['order.shipped', 'ticket.opened']) {
        const type = await org.api('/api/v2/event-types', { body: { name, schema: SHIPPED_V1 } });
        expect(type.status, type.text).to.equal(201);
      }
      const webhook = await org.api('/api/webhooks', {
        body: { events: ['order.*'], url: receiver.url },
      });
      expect(webhook.status, webhook.text).to.equal(201);
      // 26 orders (more than a page of 25), then a ticket no endpoint takes.
      const orders = Array.from({ length: 26 }, (_, i) => ({
        type: 'order.shipped',
        id: `evt_order_${String(i).padStart(2, '0')}`,
        key: `order-${i}`,
        data: { orderId: `o-${i}` },
      }));
      const batch = await org.api('/api/v2/events', { body: { events: orders } });
      expect(batch.status, batch.text).to.equal(200);
      const listedCount = async () =>
        (await org.api('/api/v2/events?limit=200')).body.events.length as number;
      await waitFor(async () => (await listedCount()) === 26, 15_000);
      const ticket = await org.api('/api/v2/events', {
        body: { type: 'ticket.opened', id: 'evt_ticket_1', data: { orderId: 'o-1' } },
      });
      expect(ticket.status, ticket.text).to.equal(202);
      await waitFor(async () => (await listedCount()) === 27, 15_000);

      const page = await pages.open(org.gatewayUrl);
      await signIn(page, org.key);
      await page.getByRole('link', { name: 'Events' }).click();
      const recent = page.getByTestId('recent-events');
      const rows = recent.locator('tbody tr');
      await rows.first().waitFor();
      expect(await rows.count()).to.equal(25);
      // Newest first: the ticket, with no deliveries; then the orders, one delivery each.
      expect(await rows.nth(0).locator('td').nth(1).textContent()).to.equal('ticket.opened');
      expect(await rows.nth(0).locator('td').nth(3).textContent()).to.equal('0');
      expect(await rows.nth(1).locator('td').nth(1).textContent()).to.equal('order.shipped');
      expect(await rows.nth(1).locator('td').nth(3).textContent()).to.equal('1');
      await page.getByRole('button', { name: 'Show older events' }).click();
      await rows.nth(26).waitFor();
      expect(await rows.count()).to.equal(27);
      expect(await page.getByRole('button', { name: 'Show older events' }).count()).to.equal(0);
      const shown = await recent.locator('tbody tr td:nth-child(5)').allTextContents();
      expect(new Set(shown).size).to.equal(27);
      await expectAtEveryWidth(page, 'the recent events', 'recent-events');

      // By type prefix and key: the one order.
      await page.getByLabel('Type', { exact: true }).fill('order.*');
      await page.getByLabel('Key', { exact: true }).fill('order-7');
      await page.getByRole('button', { name: 'Show events' }).click();
      await waitFor(async () => (await rows.count()) === 1, 10_000);
      expect(await rows.first().textContent()).to.include('evt_order_07');

      // Its deliveries: the one to the receiver, succeeded.
      await waitFor(() => receiver.calls.some((c) => c.body?.id === 'evt_order_07'), 10_000);
      await page.getByRole('button', { name: 'Deliveries of evt_order_07' }).click();
      const delivery = page
        .getByTestId('event-deliveries')
        .locator('tr', { hasText: receiver.url });
      await delivery.getByText('Succeeded').waitFor();
      expect(await page.getByLabel('Event id').inputValue()).to.equal('evt_order_07');
    } finally {
      await receiver.stop();
    }
  });
});

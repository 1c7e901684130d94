import { expect } from 'chai';
import { waitFor } from '@switchyard/shared/testing';
import {
  expectAccessible,
  expectAtEveryWidth,
  expectFocusOn,
  requireBrowser,
} from '../support/browser';
import { consoleOrganization, signIn, trackedPages } from '../support/console';
import { WebhookReceiver } from '../support/receiver';
import { verifyWithStandardWebhooks } from '../support/signatures';

describe('e2e: the console webhooks page, in Chromium', function () {
  this.timeout(90_000);
  const pages = trackedPages();

  before(function () {
    requireBrowser.call(this);
  });

  it('registers a webhook, shows a delivery failing, then replays it to a receiver answering 200', async () => {
    const org = await consoleOrganization();
    const receiver = await new WebhookReceiver().start();
    try {
      // In maintenance (503, come back in an hour), then down (503 to every attempt), then fixed.
      let mode: 'maintenance' | 'down' | 'healthy' = 'maintenance';
      receiver.respondWith(() =>
        mode === 'healthy'
          ? { status: 200, body: 'ok' }
          : mode === 'down'
            ? { status: 503, body: 'maintenance window' }
            : { status: 503, body: 'back in an hour', headers: { 'retry-after': '3600' } },
      );
      const page = await pages.open(org.gatewayUrl);
      await signIn(page, org.key);
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
      await page.getByText('No endpoints yet').waitFor();

      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const dialog = page.getByRole('dialog');
      // Nothing chosen and no URL: each said at its field, focus on the first.
      await dialog.getByLabel('usage_threshold').uncheck();
      await dialog.getByRole('button', { name: 'Add endpoint' }).click();
      await dialog.locator('#webhook-url-error').waitFor();
      expect(await dialog.locator('#webhook-events-error').textContent()).to.equal(
        'Choose at least one event.',
      );
      await expectFocusOn(page, 'webhook-url');
      await expectAtEveryWidth(page, 'the new endpoint dialog with errors');
      await dialog.getByLabel('usage_threshold').check();
      // Each error goes with its own field's change; the URL's stays until the URL changes.
      await dialog.locator('#webhook-events-error').waitFor({ state: 'detached' });
      expect(await dialog.locator('#webhook-url-error').isVisible()).to.equal(true);
      await dialog.getByLabel('Endpoint URL').fill(receiver.url);
      await dialog.locator('#webhook-url-error').waitFor({ state: 'detached' });
      await dialog.getByLabel('invoice_paid').check();
      await dialog.getByRole('button', { name: 'Add endpoint' }).click();
      const secret = (await page.getByTestId('secret-value').textContent())!.trim();
      expect(secret).to.match(/^whsec_/);
      await page.getByRole('button', { name: 'Done' }).click();
      const row = page.getByTestId('webhooks-table').locator('tr', { hasText: receiver.url });
      await row.getByText('Active').waitFor();
      expect(await row.textContent())
        .to.include('usage_threshold')
        .and.include('invoice_paid');
      // The verification code carries this endpoint's own path and secret.
      const snippet = page.getByLabel('Signature verification code');
      expect(await snippet.textContent())
        .to.include(secret)
        .and.include("app.post('/hooks'");

      // A test event answered 503 with Retry-After: failing after its first attempt, retry in an hour.
      const deliveries = page.getByTestId('deliveries-table');
      const reloads: string[] = [];
      page.on('request', (request) => {
        if (/\/deliveries\?/.test(request.url())) reloads.push(request.url());
      });
      await page.getByLabel('Test event').selectOption('usage_threshold');
      await page.getByRole('button', { name: 'Send test event' }).click();
      const failingRow = deliveries.locator('tr', { hasText: 'Failing' });
      await failingRow.waitFor();
      const failingText = await failingRow.textContent();
      expect(failingText, failingText!)
        .to.include('503')
        .and.include('back in an hour')
        .and.match(/in (60 minutes|1 hour)/);
      // Nothing is due for an hour: the log does not reload meanwhile (it used to, every second).
      const before = reloads.length;
      await page.waitForTimeout(4000);
      expect(reloads.length - before, reloads.join(' ')).to.be.at.most(0);
      // The payload sent, beside the attempt's response, is what the receiver got.
      await failingRow.getByRole('button', { name: /^Attempts of delivery/ }).click();
      const payload = page.getByRole('dialog').getByLabel('Payload sent');
      expect(JSON.parse((await payload.textContent())!)).to.deep.equal(receiver.calls[0].body);
      await expectAtEveryWidth(page, 'a failing delivery with its payload', 'webhooks-delivery');
      await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
      // The endpoint says it is failing; its retries are cancelled from the log.
      await row.getByText('Failing').waitFor();
      await failingRow.getByRole('button', { name: /^Cancel the retries of delivery/ }).click();
      const cancelledRow = deliveries.locator('tr', { hasText: 'Cancelled' });
      await cancelledRow.waitFor();
      expect(await cancelledRow.textContent()).to.include('cancelled');
      expect(receiver.calls.length).to.equal(1);

      // Another test event: every attempt of the schedule answers 503, so the delivery ends failed.
      mode = 'down';
      await page.getByLabel('Test event').selectOption('invoice_paid');
      await page.getByRole('button', { name: 'Send test event' }).click();
      const failedRow = deliveries.locator('tr', { hasText: 'Failed' });
      await failedRow.waitFor();
      expect(await failedRow.textContent())
        .to.include('invoice_paid')
        .and.include('503')
        .and.include('maintenance window');
      expect(receiver.calls.length).to.equal(5);
      await failedRow.getByRole('button', { name: /^Attempts of delivery/ }).click();
      const attempts = page.getByRole('dialog').locator('tbody tr');
      await attempts.first().waitFor();
      expect(await attempts.count()).to.equal(4);
      await expectAccessible(page, 'the attempts dialog');
      await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();

      // The filters narrow the log to what failed.
      await page.getByLabel('State').selectOption('succeeded');
      await page.getByText('None match these filters.').waitFor();
      await page.getByLabel('State').selectOption('cancelled');
      await cancelledRow.waitFor();
      expect(await deliveries.locator('tbody tr').count()).to.equal(1);
      await page.getByLabel('State').selectOption('failed');
      await failedRow.waitFor();
      // A date range before the endpoint existed holds nothing.
      await page.getByLabel('Created before').fill('2026-01-01T00:00');
      await page.getByText('None match these filters.').waitFor();
      await page.getByLabel('Created before').fill('');
      await failedRow.waitFor();

      // The receiver is fixed: replay the failed delivery from the log.
      mode = 'healthy';
      await failedRow.getByRole('checkbox').check();
      await page.getByRole('button', { name: 'Replay selected (1)' }).click();
      await page.getByText('Replayed 1 delivery').waitFor();
      await page.getByLabel('State').selectOption('');
      const succeededRow = deliveries.locator('tr', { hasText: 'Succeeded' });
      await succeededRow.waitFor();
      expect(await succeededRow.textContent()).to.include('200');
      const replayed = receiver.calls[5];
      verifyWithStandardWebhooks(secret, replayed);
      expect(replayed.body).to.include({ event: 'invoice_paid', test: true });
      expect(replayed.headers['webhook-id']).to.equal(receiver.calls[1].headers['webhook-id']);
      await expectAtEveryWidth(page, 'the webhooks page', 'webhooks');

      // Pause refuses tests until resumed; a rotated secret signs what follows; delete removes it.
      await row.getByRole('button', { name: `Pause ${receiver.url}` }).click();
      await row.getByText('Paused').waitFor();
      expect(await page.getByRole('button', { name: 'Send test event' }).isDisabled()).to.equal(
        true,
      );
      await row.getByRole('button', { name: `Resume ${receiver.url}` }).click();
      await row.getByText('Active').waitFor();
      // Its success rate over 7 days: the replay got through, the failed delivery did not (the
      // cancelled one is left out).
      await row.getByText('1 of 2').waitFor();
      expect(await row.textContent()).to.include('50%');

      // Recover failed since a time, after another outage: the delivery that failed meanwhile
      // goes once (not the one replayed with success, nor the cancelled one); a time is needed.
      mode = 'down';
      await page.getByRole('button', { name: 'Send test event' }).click();
      await waitFor(
        async () => (await deliveries.locator('tr', { hasText: 'Failed' }).count()) === 2,
        20_000,
      );
      mode = 'healthy';
      await page.getByRole('button', { name: 'Recover failed…' }).click();
      const recover = page.getByRole('dialog');
      await recover.getByLabel('Failed since').fill('');
      await recover.getByRole('button', { name: 'Send again' }).click();
      await recover.locator('#recover-since-error').waitFor();
      await expectFocusOn(page, 'recover-since');
      await recover.getByLabel('Failed since').fill('2026-01-01T00:00');
      // The field's error goes as soon as the field changes, not at the next submission.
      await recover.locator('#recover-since-error').waitFor({ state: 'detached' });
      expect(await recover.getByLabel('Failed since').getAttribute('aria-invalid')).to.equal(null);
      await expectAtEveryWidth(page, 'the recover dialog', 'webhooks-recover');
      await recover.getByRole('button', { name: 'Send again' }).click();
      await page.getByText('Sent again 1 failed delivery').waitFor();
      const recovered = await waitFor(() => receiver.calls[10], 10_000);
      expect(recovered.body).to.include({ event: 'invoice_paid', test: true });
      expect(recovered.headers['webhook-id']).to.equal(receiver.calls[6].headers['webhook-id']);
      verifyWithStandardWebhooks(secret, recovered);
      // Again: nothing left to send twice.
      await page.getByRole('button', { name: 'Recover failed…' }).click();
      await recover.getByLabel('Failed since').fill('2026-01-01T00:00');
      await recover.getByRole('button', { name: 'Send again' }).click();
      await page.getByText('Sent again 0 failed deliveries').waitFor();

      // Edit: the events and a payload filter, checked at its field before anything is sent.
      await row.getByRole('button', { name: `Edit ${receiver.url}` }).click();
      const edit = page.getByRole('dialog');
      await edit.getByLabel('usage_threshold').uncheck();
      await edit.getByLabel('Payload filter (optional)').fill('{"test": tru');
      await edit.getByRole('button', { name: 'Save endpoint' }).click();
      await edit.locator('#edit-filter-error').waitFor();
      await expectFocusOn(page, 'edit-filter');
      await expectAtEveryWidth(page, 'the edit endpoint dialog with an error', 'webhooks-edit');
      await edit.getByLabel('Payload filter (optional)').fill('{"test": true}');
      await edit.getByRole('button', { name: 'Save endpoint' }).click();
      await page.getByText(`Saved ${receiver.url}`).waitFor();
      // The toast comes first, then the list as read again.
      await waitFor(async () => !(await row.textContent())!.includes('usage_threshold'), 5_000);
      const saved = (await org.api('/api/webhooks')).body.webhooks[0];
      expect(saved).to.deep.include({ events: ['invoice_paid'], filter: { test: true } });
      await row.getByRole('button', { name: `Rotate secret of ${receiver.url}` }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click();
      const rotated = (await page.getByTestId('secret-value').textContent())!.trim();
      expect(rotated)
        .to.match(/^whsec_/)
        .and.not.equal(secret);
      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('button', { name: 'Send test event' }).click();
      const afterRotation = await waitFor(() => receiver.calls[11], 10_000);
      verifyWithStandardWebhooks(rotated, afterRotation);
      await row.getByRole('button', { name: `Delete ${receiver.url}` }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete endpoint' }).click();
      await page.getByText('No endpoints yet').waitFor();
      expect((await org.api('/api/webhooks')).body.webhooks).to.deep.equal([]);
    } finally {
      await receiver.stop();
    }
  });
});

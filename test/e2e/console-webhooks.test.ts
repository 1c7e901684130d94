import { expect } from 'chai';
import { waitFor } from '@switchyard/shared/testing';
import { expectAccessible, expectAtEveryWidth, requireBrowser } from '../support/browser';
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
      let healthy = false;
      receiver.respondWith(() =>
        healthy ? { status: 200, body: 'ok' } : { status: 503, body: 'maintenance window' },
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
      expect(await page.evaluate('document.activeElement?.id')).to.equal('webhook-url');
      await expectAtEveryWidth(page, 'the new endpoint dialog with errors');
      await dialog.getByLabel('usage_threshold').check();
      await dialog.getByLabel('Endpoint URL').fill(receiver.url);
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

      // A test event: every attempt of the schedule answers 503, so the delivery ends failed.
      await page.getByLabel('Test event').selectOption('invoice_paid');
      await page.getByRole('button', { name: 'Send test event' }).click();
      const deliveries = page.getByTestId('deliveries-table');
      const failedRow = deliveries.locator('tr', { hasText: 'Failed' });
      await failedRow.waitFor();
      expect(await failedRow.textContent())
        .to.include('invoice_paid')
        .and.include('503')
        .and.include('maintenance window');
      expect(receiver.calls.length).to.equal(4);
      await failedRow.getByRole('button', { name: /^Attempts of delivery/ }).click();
      const attempts = page.getByRole('dialog').locator('tbody tr');
      await attempts.first().waitFor();
      expect(await attempts.count()).to.equal(4);
      await expectAccessible(page, 'the attempts dialog');
      await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();

      // The filters narrow the log to what failed.
      await page.getByLabel('Status').selectOption('succeeded');
      await page.getByText('None match these filters.').waitFor();
      await page.getByLabel('Status').selectOption('failed');
      await failedRow.waitFor();

      // The receiver is fixed: replay the failed delivery from the log.
      healthy = true;
      await failedRow.getByRole('checkbox').check();
      await page.getByRole('button', { name: 'Replay selected (1)' }).click();
      await page.getByText('Replayed 1 delivery').waitFor();
      await page.getByLabel('Status').selectOption('');
      const succeededRow = deliveries.locator('tr', { hasText: 'Succeeded' });
      await succeededRow.waitFor();
      expect(await succeededRow.textContent()).to.include('200');
      const replayed = receiver.calls[4];
      verifyWithStandardWebhooks(secret, replayed);
      expect(replayed.body).to.include({ event: 'invoice_paid', test: true });
      expect(replayed.headers['webhook-id']).to.equal(receiver.calls[0].headers['webhook-id']);
      await expectAtEveryWidth(page, 'the webhooks page', 'webhooks');

      // Pause refuses tests until resumed; a rotated secret signs what follows; delete removes it.
      await row.getByRole('button', { name: `Pause ${receiver.url}` }).click();
      await row.getByText('Paused').waitFor();
      expect(await page.getByRole('button', { name: 'Send test event' }).isDisabled()).to.equal(
        true,
      );
      await row.getByRole('button', { name: `Resume ${receiver.url}` }).click();
      await row.getByText('Active').waitFor();
      await row.getByRole('button', { name: `Rotate secret of ${receiver.url}` }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click();
      const rotated = (await page.getByTestId('secret-value').textContent())!.trim();
      expect(rotated)
        .to.match(/^whsec_/)
        .and.not.equal(secret);
      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('button', { name: 'Send test event' }).click();
      const afterRotation = await waitFor(() => receiver.calls[5], 10_000);
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

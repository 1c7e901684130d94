import { expect } from 'chai';
import { waitFor } from '@switchyard/shared/testing';
import {
  browserInstalled,
  CHROMIUM_PATH,
  expectAccessible,
  openConsole,
  screenshot,
  type ConsolePage,
} from '../support/browser';
import { consoleOrganization, signIn, type ConsoleOrganization } from '../support/console';
import { daysAhead } from '../support/dates';
import { mesh } from '../support/mesh';
import { WebhookReceiver } from '../support/receiver';
import { verifyWithStandardWebhooks } from '../support/signatures';

/** Mocha's before: a browser test without Chromium is pending on a laptop, and fails in CI. */
export function requireBrowser(this: Mocha.Context): void {
  if (browserInstalled()) return;
  if (process.env.CI) throw new Error(`no Chromium at ${CHROMIUM_PATH} (apt-get install chromium)`);
  this.skip();
}

describe('e2e: the console, in Chromium', function () {
  this.timeout(60_000);
  let org: ConsoleOrganization;
  let open: ConsolePage | undefined;

  before(async function () {
    requireBrowser.call(this);
    org = await consoleOrganization({ monthlyTokenQuota: 2_000, thresholdShares: [0.5, 0.9, 1] });
    // The organization's whole month: two calls, which every page below shows.
    for (const prompt of ['A tagline for a bakery', 'A tagline for a bike shop']) {
      const reply = await org.api('/api/v2/ai/content/generate', {
        body: { prompt, max_length: 40 },
      });
      expect(reply.status, reply.text).to.equal(200);
    }
  });

  afterEach(async () => {
    const problems = open?.problems ?? [];
    await open?.close();
    open = undefined;
    expect(problems, 'requests to other origins, CSP refusals, page errors').to.deep.equal([]);
  });

  it('is served under /console with a strict Content-Security-Policy', async () => {
    const { gatewayUrl } = await mesh();
    const page = await fetch(`${gatewayUrl}/console/webhooks`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).to.include("default-src 'none'").and.include("script-src 'self'");
    expect(csp).not.to.include('unsafe-inline');
    expect(await page.text()).to.match(
      /<script type="module" crossorigin src="\/console\/assets\//,
    );

    const bare = await fetch(`${gatewayUrl}/console`, { redirect: 'manual' });
    expect(bare.status).to.equal(302);
    expect(bare.headers.get('location')).to.equal('/console/');
    const missing = await fetch(`${gatewayUrl}/console/assets/missing.js`);
    expect(missing.status).to.equal(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).to.equal(
      'not_found',
    );
  });

  it('refuses a wrong key, then signs in and shows the month after calls', async () => {
    const usage = await waitFor(async () => {
      const reply = await org.api('/api/v2/usage');
      return reply.body.calls === 2 && reply.body;
    }, 10_000);

    open = await openConsole(org.gatewayUrl);
    const { page } = open;
    await expectAccessible(page, 'the sign-in page');
    await screenshot(page, 'sign-in');
    await signIn(page, 'sk_not_a_key_of_anyone_0000');
    await expect(page.getByRole('alert')).to.be.ok;
    await page.getByText('That key was not accepted').waitFor();

    await signIn(page, org.key);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.locator('.stat', { hasText: 'Calls' }).getByText('2', { exact: true }).waitFor();
    const modelRow = page.getByTestId('usage-by-model').locator('tr', { hasText: 'builtin' });
    expect(await modelRow.locator('td').nth(1).textContent()).to.equal('2');
    const meter = page.getByRole('meter', { name: 'Monthly token quota used' });
    expect(Number(await meter.getAttribute('aria-valuenow'))).to.equal(usage.used);
    expect(await meter.getAttribute('aria-valuemax')).to.equal('2000');
    await page.getByText(`${org.name} (${org.id})`).waitFor();
    // The charts drew on their canvases.
    expect(await page.locator('#daily canvas').count()).to.equal(1);
    await expectAccessible(page, 'the overview');
    await screenshot(page, 'overview');

    // The session lives in this tab's session storage: a reload keeps it, a new context has none.
    await page.reload();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await page.evaluate('JSON.stringify(sessionStorage)')).to.include(org.key);
    expect(await page.evaluate('JSON.stringify(localStorage)')).not.to.include(org.key);
  });

  it('creates a key shown once that works, then revokes it', async () => {
    open = await openConsole(org.gatewayUrl);
    const { page } = open;
    await signIn(page, org.key);
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('Name').fill('ci pipeline');
    await page.getByRole('dialog').getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('secret-value').textContent())!.trim();
    expect(secret).to.match(/^sk_/);
    await page.getByText('shown only this once').waitFor();
    await expectAccessible(page, 'the new key dialog');
    await screenshot(page, 'keys-created');
    await page.getByRole('button', { name: 'Done' }).click();

    expect((await org.api('/api/v2/organization', { key: secret })).status).to.equal(200);
    const row = page.locator('tr', { hasText: 'ci pipeline' });
    await row.getByText('Active').waitFor();
    expect(await page.getByTestId('keys-table').textContent()).not.to.include(secret);

    await row.getByRole('button', { name: 'Revoke ci pipeline' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await row.getByText('Revoked').waitFor();
    await page.getByText('Key ci pipeline revoked').waitFor();
    expect((await org.api('/api/v2/organization', { key: secret })).status).to.equal(401);
    await expectAccessible(page, 'the keys page');
    await screenshot(page, 'keys');
  });

  it('signs in as the administrator and shows organizations, quotas and keys', async () => {
    const { adminToken } = await mesh();
    open = await openConsole(org.gatewayUrl);
    const { page } = open;
    await signIn(page, adminToken, 'Administrator');
    await page.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor();
    const row = page.getByTestId('organizations-table').locator('tr', { hasText: org.id });
    expect(await row.textContent())
      .to.include('2,000')
      .and.include('50%, 90%, 100%');
    await row.getByRole('button', { name: org.name, exact: true }).click();
    await page.getByRole('heading', { name: `Keys of ${org.name}` }).waitFor();
    await page.locator('tr', { hasText: org.keyId }).getByText('Active').waitFor();
    await expectAccessible(page, 'the organizations page');
    await screenshot(page, 'admin');
  });

  it('registers a webhook, shows a delivery failing, then replays it to a receiver answering 200', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      let healthy = false;
      receiver.respondWith(() =>
        healthy ? { status: 200, body: 'ok' } : { status: 503, body: 'maintenance window' },
      );
      open = await openConsole(org.gatewayUrl);
      const { page } = open;
      await signIn(page, org.key);
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
      await page.getByText('No endpoints yet').waitFor();

      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const dialog = page.getByRole('dialog');
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
      await expectAccessible(page, 'the webhooks page');
      await screenshot(page, 'webhooks');

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

  it('runs generate, transform and a streamed chat in the playground, with usage, cost and working code', async () => {
    const own = await consoleOrganization();
    open = await openConsole(own.gatewayUrl);
    const { page } = open;
    await signIn(page, own.key);
    await page.getByRole('link', { name: 'Playground' }).click();
    await page.getByRole('heading', { name: 'Playground', level: 1 }).waitFor();

    // Generate, streamed: the text arrives, then the call's usage and cost as the API reported them.
    await page.getByLabel('Prompt').fill('A tagline for a flower shop');
    await page.getByRole('button', { name: 'Run' }).click();
    const usage = page.getByTestId('call-usage');
    await usage.waitFor();
    expect((await page.getByTestId('answer').textContent())!.trim()).not.to.equal('');
    expect(await usage.textContent())
      .to.include('builtin')
      .and.match(/Cost\$\d/);
    const curl = (await page.getByLabel('curl').textContent())!;
    expect(curl).to.include('/api/v2/ai/content/generate').and.include('"stream": true');

    // Transform: summarize, not streamed.
    await page.getByRole('button', { name: 'Transform' }).click();
    await page
      .getByLabel('Text')
      .fill(
        'Our bakery opens at seven. Fresh bread every morning. Cakes to order with two days of notice.',
      );
    await page.getByRole('button', { name: 'Run' }).click();
    await usage.waitFor();
    expect((await page.getByTestId('answer').textContent())!.trim()).not.to.equal('');

    // Chat with the assistant, streamed; the curl shown is a request that works.
    await page.getByRole('button', { name: 'Chat' }).click();
    await page.getByLabel('Message').fill('What can you help me with?');
    const shownCurl = (await page.getByLabel('curl').textContent())!;
    expect(shownCurl)
      .to.include('/api/v2/ai/assistants/chat')
      .and.include('What can you help me with?');
    expect(await page.getByLabel('OpenAI SDK').textContent())
      .to.include(`baseURL: '${own.gatewayUrl}/v1'`)
      .and.include('client.chat.completions.create');
    await page.getByRole('button', { name: 'Send' }).click();
    const log = page.getByTestId('chat-log');
    await log.locator('.chat-assistant').waitFor();
    expect(await log.locator('.chat-user').textContent()).to.include('What can you help me with?');
    await usage.waitFor();
    expect(await usage.textContent()).to.include('builtin');
    const body = JSON.parse(shownCurl.slice(shownCurl.indexOf("-d '") + 4, -1)) as {
      stream?: boolean;
    };
    const again = await own.api('/api/v2/ai/assistants/chat', {
      body: { ...body, stream: false },
    });
    expect(again.status, again.text).to.equal(200);

    const month = await waitFor(async () => {
      const reply = await own.api('/api/v2/usage');
      return reply.body.calls >= 4 && reply.body;
    }, 10_000);
    expect(month.byEndpoint.length).to.be.greaterThan(1);
    await expectAccessible(page, 'the playground');
    await screenshot(page, 'playground');
  });

  it('creates a knowledge collection and imports a CSV, naming its one bad row first', async () => {
    const own = await consoleOrganization();
    open = await openConsole(own.gatewayUrl);
    const { page } = open;
    await signIn(page, own.key);
    await page.getByRole('link', { name: 'Knowledge' }).click();
    await page.getByRole('heading', { name: 'Knowledge', level: 1 }).waitFor();
    await page.getByLabel('New collection').fill('concerts');
    await page.getByLabel('Kind').selectOption('events');
    await page.getByRole('button', { name: 'Create collection' }).click();
    const row = page.getByTestId('collections-table').locator('tr', { hasText: 'concerts' });
    await row.waitFor();

    const csv = (price: string) => ({
      name: 'concerts.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(
        'id,title,city,startsAt,price\n' +
          `c1,Jazz night,Hamburg,${daysAhead(40)},12\n` +
          `c2,Choir,Berlin,${daysAhead(41)},${price}\n`,
      ),
    });
    await page.getByLabel('File (.csv or .jsonl)').setInputFiles(csv('cheap'));
    await page.getByRole('button', { name: 'Import' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'The file was not imported' });
    await refusal.getByText('/content/row/2/price', { exact: true }).waitFor();
    expect(await row.locator('td').nth(2).textContent()).to.equal('0');

    await page.getByLabel('File (.csv or .jsonl)').setInputFiles(csv('9.5'));
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByText('Imported 2 documents into concerts').waitFor();
    await waitFor(async () => (await row.locator('td').nth(2).textContent()) === '2', 10_000);
    const document = await own.api('/api/v2/knowledge/collections/concerts/documents/c2');
    expect(document.body.fields).to.deep.include({ price: 9.5, city: 'Berlin' });

    await page.getByLabel('Query').fill('choir in Berlin');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const results = page.getByTestId('search-results').locator('li');
    await results.first().waitFor();
    expect(await results.count()).to.equal(1);
    expect(await results.first().getByText('Choir', { exact: true }).count()).to.equal(1);
    await results
      .first()
      .getByText(/^score 0\.\d{4}$/)
      .waitFor();
    await results
      .first()
      .getByText(/^BM25 \d+\.\d{2}$/)
      .waitFor();
    await page.getByText('filters: city: Berlin').waitFor();
    await expectAccessible(page, 'the knowledge page');
    await screenshot(page, 'knowledge');
  });

  it("edits an agent as a form, shows the API's refusal at its field, then chats with it over imported data and sees a citation", async () => {
    const own = await consoleOrganization();
    const created = await own.api('/api/v2/knowledge/collections', {
      body: { name: 'help', kind: 'articles' },
    });
    expect(created.status, created.text).to.equal(201);
    const articles = [
      {
        id: 'password',
        title: 'Reset your password',
        body: 'Open Settings, choose Security and press Reset password. A reset link arrives by email within a minute.',
        url: 'https://help.example/password',
      },
      {
        id: 'refunds',
        title: 'Refunds',
        body: 'Refunds are paid back to the card within 14 days of a return.',
        url: 'https://help.example/refunds',
      },
    ];
    const imported = await own.api('/api/v2/knowledge/collections/help/import', {
      body: { format: 'jsonl', content: articles.map((a) => JSON.stringify(a)).join('\n') },
    });
    expect(imported.status, imported.text).to.equal(200);

    open = await openConsole(own.gatewayUrl);
    const { page } = open;
    await signIn(page, own.key);
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'New agent' }).click();
    await page.getByLabel('Name').fill('helpdesk');
    await page.getByLabel('Behaviour').selectOption('support');
    await page.getByLabel('Description').fill('Answers questions about the shop');
    // Beside the model choice: the evaluation's figures of the model that would answer.
    const modelHint = page.locator('#agent-model-hint');
    expect(await modelHint.textContent()).to.match(/builtin: held-out \d+(\.\d)?%/);
    await page.getByLabel('Model').fill('no-such-model');
    expect(await modelHint.textContent()).to.include('no-such-model: not evaluated yet');
    await page.getByLabel('help', { exact: true }).check();
    await page.getByRole('button', { name: 'Save agent' }).click();
    // The API's refusal, shown at the field it names.
    const modelError = page.locator('#agent-model-error');
    await modelError.waitFor();
    expect(await modelError.textContent()).to.include("unknown model 'no-such-model'");
    expect((await own.api('/api/v2/agents/helpdesk')).status).to.equal(404);

    await page.getByLabel('Model').fill('');
    await page.getByRole('button', { name: 'Save agent' }).click();
    await page.getByText('Saved helpdesk').waitFor();
    const stored = await own.api('/api/v2/agents/helpdesk');
    expect(stored.body).to.deep.include({ base: 'support', collections: ['help'], model: '' });
    await page.getByRole('heading', { name: 'Try helpdesk' }).waitFor();

    await page.getByLabel('Your message').fill('How do I reset my password?');
    await page.getByRole('button', { name: 'Send' }).click();
    const citation = page
      .getByTestId('chat-log')
      .locator('a[href="https://help.example/password"]');
    await citation.waitFor();
    expect(await citation.getAttribute('target')).to.equal('_blank');
    await page.getByTestId('agent-usage').waitFor();
    await expectAccessible(page, 'the agents page');
    await screenshot(page, 'agents');

    await page.getByRole('button', { name: 'Delete agent' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete agent' }).click();
    await page.getByText('Deleted helpdesk').waitFor();
    expect((await own.api('/api/v2/agents/helpdesk')).status).to.equal(404);
  });

  it('works with the keyboard alone and fits a phone screen', async () => {
    open = await openConsole(org.gatewayUrl, { width: 390, height: 844 });
    const { page } = open;
    await page.keyboard.press('Tab'); // Organization
    await page.keyboard.press('Tab'); // Administrator
    await page.keyboard.press('Tab'); // the key field
    await page.keyboard.type(org.key);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // Focus moves to the page's content after sign-in; the navigation is behind it.
    const focused = () =>
      page.evaluate<string | null>('document.activeElement?.getAttribute("href")');
    for (let i = 0; i < 10 && (await focused()) !== '/console/keys'; i++)
      await page.keyboard.press('Shift+Tab');
    expect(await focused()).to.equal('/console/keys');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.locator('#daily canvas').waitFor();
    await screenshot(page, 'overview-phone');
    const wider = await page.evaluate<string[]>(`[...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
      .map((el) => el.tagName.toLowerCase() + '.' + el.className)`);
    expect(wider, 'elements wider than a 390 px screen').to.deep.equal([]);
  });
});

import { expect } from 'chai';
import { waitFor } from '@switchyard/shared/testing';
import { apertiumInstalled } from '../support/apertium';
import { expectAtEveryWidth, expectFocusOn, requireBrowser } from '../support/browser';
import { consoleOrganization, signIn, trackedPages } from '../support/console';
import { daysAhead } from '../support/dates';

describe('e2e: the console at work (playground, knowledge, agents), in Chromium', function () {
  this.timeout(90_000);
  const pages = trackedPages();

  before(function () {
    requireBrowser.call(this);
  });

  it('runs generate, transform and a streamed chat in the playground, with usage, cost and working code', async () => {
    const own = await consoleOrganization();
    const page = await pages.open(own.gatewayUrl);
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

    // The API's refusal at its field, focus moved there: a prompt of blanks only.
    await page.getByLabel('Prompt').fill('   ');
    await page.getByRole('button', { name: 'Run' }).click();
    const promptError = page.locator('#pg-prompt-error');
    await promptError.waitFor();
    expect(await promptError.textContent()).to.equal('must not be blank');
    await expectFocusOn(page, 'pg-prompt');
    // The browser's own checks too: a length under 1.
    await page.getByLabel('Prompt').fill('A tagline for a flower shop');
    await page.getByLabel('Max length (tokens)').fill('0');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('#pg-max-error').waitFor();
    // Focus moves to the field after the error renders (the form's effect), not with it.
    await expectFocusOn(page, 'pg-max');
    await page.getByLabel('Max length (tokens)').fill('60');

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
    await expectAtEveryWidth(page, 'the playground', 'playground');
  });

  it('translates in the playground with the source language the model needs, the refusal of a pair it lacks at its field', async function () {
    if (!apertiumInstalled()) this.skip(); // the one translation engine offline (CI installs it)
    const own = await consoleOrganization();
    const page = await pages.open(own.gatewayUrl);
    await signIn(page, own.key);
    await page.getByRole('link', { name: 'Playground' }).click();
    await page.getByRole('button', { name: 'Transform' }).click();
    await page.getByLabel('Action').selectOption('translate');
    // Only models with the translate capability are offered.
    const offered = await page.getByLabel('Model').locator('option').allTextContents();
    expect(offered).to.deep.equal(['apertium (apertium)']);
    await page.getByText('apertium translates from').waitFor();
    await page.getByLabel('Text').fill('Good morning');

    // Without a source language the form says so at its field (apertium does not detect one).
    await page.getByLabel('Source language').fill('');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('#pg-source-error').waitFor();
    await expectFocusOn(page, 'pg-source');

    // A pair the model lacks: the API's 422 at the target language's field.
    await page.getByLabel('Source language').fill('en');
    await page.getByLabel('Target language').fill('de');
    await page.getByRole('button', { name: 'Run' }).click();
    const target = page.locator('#pg-language-error');
    await target.waitFor();
    expect(await target.textContent()).to.include('no en -> de route');
    await expectFocusOn(page, 'pg-language');
    await expectAtEveryWidth(
      page,
      'the playground with a refused translation',
      'playground-translate',
    );

    await page.getByLabel('Target language').fill('es');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByTestId('call-usage').waitFor();
    expect((await page.getByTestId('answer').textContent())!.trim()).to.equal('Buenos días');
    const curl = (await page.getByLabel('curl').textContent())!;
    expect(curl).to.include('"source_language": "en"').and.include('"target_language": "es"');
  });

  it('creates a knowledge collection, imports a CSV (naming its one bad row first), browses and deletes its documents', async () => {
    const own = await consoleOrganization();
    const page = await pages.open(own.gatewayUrl);
    await signIn(page, own.key);
    await page.getByRole('link', { name: 'Knowledge' }).click();
    await page.getByRole('heading', { name: 'Knowledge', level: 1 }).waitFor();
    // A name the API would refuse, said in words at the field before anything is sent.
    await page.getByLabel('New collection').fill('Concerts 2026');
    await page.getByRole('button', { name: 'Create collection' }).click();
    expect(await page.locator('#collection-name-error').textContent()).to.include(
      'lowercase letters, digits, - and _',
    );
    await expectFocusOn(page, 'collection-name');
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

    // The documents, by id: one shown with its fields, one deleted after a confirmation.
    const documents = page.getByTestId('documents-table');
    await documents.locator('tr', { hasText: 'Jazz night' }).waitFor();
    expect(await documents.locator('tbody tr').count()).to.equal(2);
    await page.getByRole('button', { name: 'Show document c2' }).click();
    const fields = JSON.parse((await page.getByTestId('document-fields').textContent())!);
    expect(fields).to.deep.include({ title: 'Choir', city: 'Berlin', price: 9.5 });
    await expectAtEveryWidth(page, 'a document', 'knowledge-document');
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: 'Delete document c1' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete document' }).click();
    await page.getByText('Deleted c1 from concerts').waitFor();
    await waitFor(async () => (await documents.locator('tbody tr').count()) === 1, 10_000);
    expect((await own.api('/api/v2/knowledge/collections/concerts/documents/c1')).status).to.equal(
      404,
    );
    await waitFor(async () => (await row.locator('td').nth(2).textContent()) === '1', 10_000);
    await expectAtEveryWidth(page, 'the knowledge page', 'knowledge');
  });

  it("edits an agent as a form, checks its name in the browser, says what support does with an events collection, shows the API's refusal at its field, then chats with it over imported data and sees a citation", async () => {
    const own = await consoleOrganization();
    for (const [name, kind] of [
      ['help', 'articles'],
      ['concerts', 'events'],
    ]) {
      const created = await own.api('/api/v2/knowledge/collections', { body: { name, kind } });
      expect(created.status, created.text).to.equal(201);
    }
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

    const page = await pages.open(own.gatewayUrl);
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'PUT') sent.push(request.url());
    });
    await signIn(page, own.key);
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'New agent' }).click();
    // The name is checked in the browser (its pattern compiles: no console error), in words.
    await page.getByLabel('Name').fill('Help Desk');
    await page.getByRole('button', { name: 'Save agent' }).click();
    const nameError = page.locator('#agent-name-error');
    await nameError.waitFor();
    expect(await nameError.textContent()).to.equal(
      'Use lowercase letters, digits, - and _, starting with a letter or digit (at most 63 characters).',
    );
    await expectFocusOn(page, 'agent-name');
    expect(sent).to.deep.equal([]);

    await page.getByLabel('Name').fill('helpdesk');
    await page.getByLabel('Behaviour').selectOption('support');
    await page.getByLabel('Description').fill('Answers questions about the shop');
    await page.getByLabel('Model').fill('no-such-model');
    await page.getByLabel('help', { exact: false }).first().check();
    // Support reads articles and documents: ticking an events collection is answered, not ignored.
    await page.getByRole('checkbox', { name: /^concerts/ }).check();
    const note = page.getByTestId('collections-note');
    expect(await note.textContent()).to.include(
      'support answers from articles and documents collections only: concerts (events) is not searched',
    );
    await page.getByRole('checkbox', { name: /^concerts/ }).uncheck();
    expect(await note.count()).to.equal(0);
    await page.getByRole('button', { name: 'Save agent' }).click();
    // The API's refusal, shown at the field it names, focus moved there.
    const modelError = page.locator('#agent-model-error');
    await modelError.waitFor();
    expect(await modelError.textContent()).to.include("unknown model 'no-such-model'");
    await expectFocusOn(page, 'agent-model');
    expect((await own.api('/api/v2/agents/helpdesk')).status).to.equal(404);
    await expectAtEveryWidth(page, 'the agent form with an error', 'agents-error');

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
    await expectAtEveryWidth(page, 'the agents page', 'agents');

    await page.getByRole('button', { name: 'Delete agent' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete agent' }).click();
    await page.getByText('Deleted helpdesk').waitFor();
    expect((await own.api('/api/v2/agents/helpdesk')).status).to.equal(404);
  });
});

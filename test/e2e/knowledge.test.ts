import { expect } from 'chai';
import { waitFor } from '@switchyard/shared/testing';
import { daysAhead } from '../support/dates';
import { api, callApi } from '../support/http';
import { mesh } from '../support/mesh';
import { WebhookReceiver } from '../support/receiver';

function unique(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
}

/** A second organization with its own key, created through the admin API. */
export async function secondOrganization(): Promise<string> {
  const m = await mesh();
  const admin = { authorization: `Bearer ${m.adminToken}`, key: null };
  const id = unique('org2');
  const created = await api('/api/v2/admin/organizations', {
    ...admin,
    body: { id, name: 'Second org', monthlyTokenQuota: 1_000_000 },
  });
  expect(created.status, created.text).to.equal(201);
  const issued = await api(`/api/v2/admin/organizations/${id}/keys`, {
    ...admin,
    body: { name: 'e2e' },
  });
  expect(issued.status, issued.text).to.equal(201);
  return issued.body.key as string;
}

describe('e2e: knowledge bases', function () {
  this.timeout(60_000);

  it('creates a collection, imports JSON Lines, lists and reads it, and tells the webhooks (data_updated)', async () => {
    const receiver = await new WebhookReceiver().start();
    const hook = await api('/api/webhooks', { body: { event: 'data_updated', url: receiver.url } });
    expect(hook.status, hook.text).to.equal(201);
    try {
      const name = unique('gigs');
      const created = await api('/api/v2/knowledge/collections', {
        body: { name, kind: 'events', timeZone: 'Europe/Berlin' },
      });
      expect(created.status, created.text).to.equal(201);
      expect(created.body).to.include({
        name,
        kind: 'events',
        timeZone: 'Europe/Berlin',
        documentCount: 0,
      });
      const lines = [1, 2, 3].map((i) =>
        JSON.stringify({
          id: `e${i}`,
          title: `Gig ${i}`,
          city: 'Berlin',
          startsAt: daysAhead(30 + i, '20:00:00+01:00'),
          url: `https://tickets.example/e${i}`,
        }),
      );
      const imported = await api(`/api/v2/knowledge/collections/${name}/import`, {
        body: { format: 'jsonl', content: lines.join('\n') },
      });
      expect(imported.status, imported.text).to.equal(200);
      expect(imported.body.count).to.equal(3);
      const delivered = await waitFor(
        () => receiver.calls.find((c) => c.body?.dataset === name),
        10_000,
      );
      expect(delivered.body).to.include({ event: 'data_updated', dataset: name, count: 3 });
      const page = await api(`/api/v2/knowledge/collections/${name}/documents?limit=2`);
      expect(page.body.documents.map((d: { id: string }) => d.id)).to.deep.equal(['e1', 'e2']);
      expect(page.body.nextAfter).to.equal('e2');
      const doc = await api(`/api/v2/knowledge/collections/${name}/documents/e3`);
      expect(doc.body.fields).to.include({ title: 'Gig 3', city: 'Berlin' });
      const bad = await api(`/api/v2/knowledge/collections/${name}/documents`, {
        body: { documents: [{ id: 'x', title: 'No date' }] },
      });
      expect(bad.status).to.equal(400);
      expect(bad.body.error.details).to.deep.equal([
        { field: '/documents/0/startsAt', reason: 'is required' },
      ]);
      expect((await api(`/api/v2/knowledge/collections/${name}`)).body.documentCount).to.equal(3);
      expect(
        (await api(`/api/v2/knowledge/collections/${name}`, { method: 'DELETE' })).status,
      ).to.equal(204);
    } finally {
      await api(`/api/webhooks/${hook.body.id}`, { method: 'DELETE' });
      await receiver.stop();
    }
  });

  it('imports a file sent as it is (application/x-ndjson, text/csv), names a bad line or row, refuses an oversized body, and documents both types', async () => {
    const name = unique('raw');
    expect(
      (await api('/api/v2/knowledge/collections', { body: { name, kind: 'events' } })).status,
    ).to.equal(201);
    const path = `/api/v2/knowledge/collections/${name}/import`;
    const line = (i: number) =>
      JSON.stringify({
        id: `r${i}`,
        title: `Raw ${i}`,
        city: 'Hamburg',
        startsAt: daysAhead(60 + i),
      });
    const jsonl = await api(path, {
      rawBody: `${line(1)}\n\n${line(2)}\n`,
      contentType: 'application/x-ndjson',
    });
    expect(jsonl.status, jsonl.text).to.equal(200);
    expect(jsonl.body.count).to.equal(2);
    const csv = await api(path, {
      rawBody: `id,title,city,startsAt,price,tags\nr3,Raw 3,Hamburg,${daysAhead(63)},12.5,jazz|live\n`,
      contentType: 'text/csv; charset=utf-8',
    });
    expect(csv.status, csv.text).to.equal(200);
    expect((await api(`${path.replace('/import', '')}/documents/r3`)).body.fields).to.deep.include({
      price: 12.5,
      tags: ['jazz', 'live'],
    });

    // The third line is not JSON, the fourth lacks startsAt: each is named; nothing is written.
    const badLines = await api(path, {
      rawBody: `${line(4)}\n${line(5)}\n{oops\n`,
      contentType: 'application/x-ndjson',
    });
    expect(badLines.status).to.equal(400);
    expect(badLines.body.error.details[0].field).to.equal('/content/line/3');
    const missing = await api(path, {
      rawBody: `${line(4)}\n\n{"id":"r9","title":"No date"}\n`,
      contentType: 'application/x-ndjson',
    });
    expect(missing.status).to.equal(400);
    expect(missing.body.error.details).to.deep.equal([
      { field: '/content/line/3/startsAt', reason: 'is required' },
    ]);
    const badRow = await api(path, {
      rawBody: `id,title,startsAt,price\nr6,Six,${daysAhead(66)},12\nr7,Seven,${daysAhead(67)},cheap\n`,
      contentType: 'text/csv',
    });
    expect(badRow.status).to.equal(400);
    expect(badRow.body.error.details).to.deep.equal([
      { field: '/content/row/2/price', reason: 'must be number' },
    ]);
    expect((await api(`/api/v2/knowledge/collections/${name}`)).body.documentCount).to.equal(3);

    const huge = await api(path, {
      rawBody: `${line(1)}\n`.repeat(30_000),
      contentType: 'application/x-ndjson',
    });
    expect(huge.status).to.equal(413);
    expect(huge.body.error.code).to.equal('payload_too_large');
    const other = await api(path, { rawBody: '<xml/>', contentType: 'application/xml' });
    expect(other.status).to.equal(415);
    expect(other.body.error.message).to.include('text/csv');

    const openapi = await api('/openapi.json', { key: null });
    const content =
      openapi.body.paths['/api/v2/knowledge/collections/{collection}/import'].post.requestBody
        .content;
    expect(Object.keys(content)).to.include.members([
      'application/json',
      'application/x-ndjson',
      'text/csv',
    ]);
    expect(
      (await api(`/api/v2/knowledge/collections/${name}`, { method: 'DELETE' })).status,
    ).to.equal(204);
  });

  it('searches a collection: ranked passages with their scores and how the query was read', async () => {
    const articles = unique('help');
    expect(
      (await api('/api/v2/knowledge/collections', { body: { name: articles, kind: 'articles' } }))
        .status,
    ).to.equal(201);
    const documents = [
      {
        id: 'refunds',
        title: 'Refunds',
        body: 'Ask for a refund within 14 days. Your password is not needed for it.',
        url: 'https://help.example/refunds',
      },
      {
        id: 'password',
        title: 'Reset your password',
        body: 'Open Settings, choose Security and press Reset password. A reset link arrives by email.',
        url: 'https://help.example/password',
      },
      { id: 'shipping', title: 'Shipping times', body: 'Parcels arrive within three days.' },
    ];
    const written = await api(`/api/v2/knowledge/collections/${articles}/documents`, {
      body: { documents },
    });
    expect(written.status, written.text).to.equal(200);
    const search = (name: string, body: object) =>
      api(`/api/v2/knowledge/collections/${name}/search`, { body });

    const found = await search(articles, { query: 'how do I reset my password' });
    expect(found.status, found.text).to.equal(200);
    const ids = found.body.results.map((r: { id: string }) => r.id);
    expect(ids[0]).to.equal('password');
    expect(ids).not.to.include('shipping');
    const [best, ...rest] = found.body.results;
    expect(best).to.include({ rank: 1, title: 'Reset your password', url: documents[1]!.url });
    expect(best.passage).to.include('Reset password');
    expect(best.score).to.be.a('number').above(0);
    expect(best.lexicalScore).to.be.a('number').above(0);
    for (const r of rest) expect(r.score).to.be.at.most(best.score);
    expect(found.body.reading.words).to.include('password');
    expect(found.body.requestId).to.be.a('string');
    const one = await search(articles, { query: 'password', limit: 1 });
    expect(one.body.results).to.have.length(1);

    const events = unique('shows');
    await api('/api/v2/knowledge/collections', { body: { name: events, kind: 'events' } });
    await api(`/api/v2/knowledge/collections/${events}/documents`, {
      body: {
        documents: ['Berlin', 'Hamburg'].map((city) => ({
          id: city.toLowerCase(),
          title: `Jazz night ${city}`,
          city,
          startsAt: new Date(Date.now() + 3 * 86_400_000).toISOString(),
        })),
      },
    });
    const inBerlin = await search(events, { query: 'jazz in Berlin' });
    expect(inBerlin.status, inBerlin.text).to.equal(200);
    expect(inBerlin.body.results.map((r: { id: string }) => r.id)).to.deep.equal(['berlin']);
    expect(inBerlin.body.reading.cities.map((c: string) => c.toLowerCase())).to.deep.equal([
      'berlin',
    ]);

    const missing = await search(unique('none'), { query: 'anything' });
    expect(missing.status).to.equal(404);
    expect(missing.body.error.code).to.equal('not_found');
    const empty = await search(articles, { query: '' });
    expect(empty.status).to.equal(400);
    expect(empty.body.error.details[0].field).to.equal('/query');
    const other = await secondOrganization();
    const m = await mesh();
    const elsewhere = await callApi(
      m.gatewayUrl,
      other,
      `/api/v2/knowledge/collections/${articles}/search`,
      { body: { query: 'password' } },
    );
    expect(elsewhere.status).to.equal(404);
    for (const name of [articles, events])
      await api(`/api/v2/knowledge/collections/${name}`, { method: 'DELETE' });
  });

  it("keeps one organization's collections out of another's reach", async () => {
    const name = unique('private');
    expect(
      (await api('/api/v2/knowledge/collections', { body: { name, kind: 'articles' } })).status,
    ).to.equal(201);
    await api(`/api/v2/knowledge/collections/${name}/documents`, {
      body: { documents: [{ id: 'a1', title: 'Secret', body: 'Only for us' }] },
    });
    const other = await secondOrganization();
    const m = await mesh();
    const asOther = (path: string, options = {}) => callApi(m.gatewayUrl, other, path, options);
    expect((await asOther(`/api/v2/knowledge/collections/${name}`)).status).to.equal(404);
    expect((await asOther(`/api/v2/knowledge/collections/${name}/documents/a1`)).status).to.equal(
      404,
    );
    expect((await asOther('/api/v2/knowledge/collections')).body.collections).to.deep.equal([]);
    expect(
      (
        await asOther(`/api/v2/knowledge/collections/${name}/documents`, {
          body: { documents: [{ id: 'x', title: 't', body: 'b' }] },
        })
      ).status,
    ).to.equal(404);
    // The dev organization's support agent answers from its own articles while it has some.
    expect(
      (await api(`/api/v2/knowledge/collections/${name}`, { method: 'DELETE' })).status,
    ).to.equal(204);
  });
  it('imports files in any language (a German CSV with BOM, CRLF and ";", a JSON array, JSON Lines): its own headers mapped or kept, found by a question and shown in the answer', async () => {
    // A fresh organization: the answers come from these files only.
    const key = await secondOrganization();
    const m = await mesh();
    const as = (path: string, options = {}) => callApi(m.gatewayUrl, key, path, options);
    const name = 'termine';
    expect(
      (
        await as('/api/v2/knowledge/collections', {
          body: { name, kind: 'events', timeZone: 'Europe/Berlin' },
        })
      ).status,
    ).to.equal(201);
    const path = `/api/v2/knowledge/collections/${name}/import`;

    // As a spreadsheet in Germany saves it: byte order mark, CRLF, ";" between cells, decimal comma.
    const csv =
      '\uFEFFNr;Titel;Beginn;Stadt;Preis;Einlass;Straße\r\n' +
      `k1;Orgelnacht im Dom;${daysAhead(20, '19:30:00+01:00')};Köln;12,50;18:45 Uhr;Domkloster 4\r\n` +
      `k2;Chorkonzert St. Aposteln;${daysAhead(21, '18:00:00+01:00')};Köln;0;17:30 Uhr;Neumarkt 30\r\n`;
    const fieldMap = {
      Nr: 'id',
      Titel: 'title',
      Beginn: 'startsAt',
      Stadt: 'city',
      Preis: 'price',
    };
    const fromCsv = await as(`${path}?fieldMap=${encodeURIComponent(JSON.stringify(fieldMap))}`, {
      rawBody: csv,
      contentType: 'text/csv; charset=utf-8',
    });
    expect(fromCsv.status, fromCsv.text).to.equal(200);
    expect(fromCsv.body).to.include({ collection: name, count: 2 });
    expect(fromCsv.body.metadataFields).to.deep.equal(['Einlass', 'Straße']);
    const k1 = await as(`/api/v2/knowledge/collections/${name}/documents/k1`);
    expect(k1.body.fields).to.deep.include({
      title: 'Orgelnacht im Dom',
      city: 'Köln',
      price: 12.5,
    });
    expect(k1.body.fields.metadata).to.deep.equal({ Einlass: '18:45 Uhr', Straße: 'Domkloster 4' });

    // A JSON array as it is, with keys of its own.
    const array = [
      {
        id: 'j1',
        title: 'Lesenacht',
        startsAt: daysAhead(22, '20:00:00+01:00'),
        city: 'Köln',
        Veranstalter: 'Stadtbibliothek',
        Sprachen: ['Deutsch', 'Türkisch'],
      },
    ];
    const fromArray = await as(path, { rawBody: JSON.stringify(array) });
    expect(fromArray.status, fromArray.text).to.equal(200);
    expect(fromArray.body).to.include({ count: 1 });
    expect(fromArray.body.metadataFields).to.deep.equal(['Veranstalter', 'Sprachen']);

    // JSON Lines with a byte order mark, CRLF and a non-Latin title.
    const jsonl =
      `\uFEFF${JSON.stringify({ id: 'l1', title: 'Straßenfest', startsAt: daysAhead(23, '14:00:00+01:00'), Straße: 'Kastanienallee' })}\r\n` +
      `${JSON.stringify({ id: 'l2', title: 'Ёлка', startsAt: daysAhead(24, '17:00:00+01:00') })}\r\n`;
    const fromLines = await as(path, { rawBody: jsonl, contentType: 'application/x-ndjson' });
    expect(fromLines.status, fromLines.text).to.equal(200);
    expect(fromLines.body.count).to.equal(2);
    expect(
      (await as(`/api/v2/knowledge/collections/${name}/documents/l2`)).body.fields.title,
    ).to.equal('Ёлка');

    // The kept values are searched...
    const search = await as(`/api/v2/knowledge/collections/${name}/search`, {
      body: { query: 'Domkloster' },
    });
    expect(search.status, search.text).to.equal(200);
    expect(search.body.results.map((r: { id: string }) => r.id)).to.deep.equal(['k1']);
    expect(search.body.results[0].passage).to.include('Straße: Domkloster 4');

    // ...and a question about them is answered with them.
    const ask = async (content: string) => {
      const res = await as('/api/v2/ai/assistants/chat', {
        body: {
          user_id: 'u-intl',
          session_id: unique('intl'),
          messages: [{ role: 'user', content }],
        },
      });
      expect(res.status, res.text).to.equal(200);
      return res.body.reply as string;
    };
    const doors = await ask('Wann ist Einlass bei der Orgelnacht im Dom?');
    expect(doors).to.include('Orgelnacht im Dom').and.include('Einlass: 18:45 Uhr');
    const street = await ask('Gibt es was in der Kastanienallee?');
    expect(street).to.include('Straßenfest').and.include('Straße: Kastanienallee');
    expect(street).not.to.include('Orgelnacht');
    const library = await ask('Was gibt es in der Stadtbibliothek?');
    expect(library).to.include('Lesenacht').and.include('Veranstalter: Stadtbibliothek');
    expect(await ask('Wann ist die Ёлка?')).to.include('Ёлка');
  });

  it('answers 400 naming the field for non-ASCII field names and values, and keeps serving', async () => {
    const name = unique('intl');
    expect(
      (await api('/api/v2/knowledge/collections', { body: { name, kind: 'events' } })).status,
    ).to.equal(201);
    const path = `/api/v2/knowledge/collections/${name}/import`;
    // Straße is kept as metadata; the row still lacks the fields an event needs.
    const csv = await api(path, { body: { format: 'csv', content: 'id,Straße\n1,x' } });
    expect(csv.status, csv.text).to.equal(400);
    expect(csv.body.error.code).to.equal('invalid_request');
    expect(csv.body.error.details).to.deep.equal([
      { field: '/content/row/1/title', reason: 'is required' },
      { field: '/content/row/1/startsAt', reason: 'is required' },
    ]);
    const unmapped = await api(path, {
      body: { format: 'csv', content: 'id,Straße\n1,x', fieldMap: { Straße: 'Straße' } },
    });
    expect(unmapped.status, unmapped.text).to.equal(400);
    expect(unmapped.body.error.details[0].field).to.equal('/fieldMap/Straße');
    const jsonl = await api(path, { body: { format: 'jsonl', content: 'é' } });
    expect(jsonl.status, jsonl.text).to.equal(400);
    expect(jsonl.body.error.details[0].field).to.match(/line 1|\/1|content/);
    const field = await api(`/api/v2/knowledge/collections/${name}/documents`, {
      body: {
        documents: [
          { id: 'x', title: 'Konzert', startsAt: daysAhead(31, '20:00:00+01:00'), métadata: 'ü' },
        ],
      },
    });
    expect(field.status, field.text).to.equal(400);
    expect(JSON.stringify(field.body.error.details)).to.include('métadata');
    expect((await api(`/api/v2/knowledge/collections/${name}`)).status).to.equal(200);
  });
});

import { expect } from 'chai';
import { AppError } from '@switchyard/shared';
import { startHarness, resetDoubles, type Harness } from './harness';
import { expectShape } from './shape';
import {
  ImportDocumentsResponse,
  KnowledgeCollection,
  KnowledgeDocument,
  KnowledgeDocumentList,
  WriteDocumentsResponse,
} from '../src/schemas/knowledge';

const COLLECTION = {
  name: 'gigs',
  kind: 'events',
  description: '',
  time_zone: 'Europe/Berlin',
  document_count: 2,
  created_at: '2026-11-20T10:00:00.000Z',
  updated_at: '2026-11-20T11:00:00.000Z',
};

describe('gateway knowledge routes', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.stop());
  afterEach(() => resetDoubles(h));

  it('creates a collection (201) with the caller organization in the call', async () => {
    h.doubles.assistant.on('CreateCollection', async () => COLLECTION);
    const res = await h.send('POST', '/api/v2/knowledge/collections', {
      body: { name: 'gigs', kind: 'events', timeZone: 'Europe/Berlin' },
    });
    expect(res.status).to.equal(201);
    expect(res.body).to.deep.equal({
      name: 'gigs',
      kind: 'events',
      description: '',
      timeZone: 'Europe/Berlin',
      documentCount: 2,
      createdAt: COLLECTION.created_at,
      updatedAt: COLLECTION.updated_at,
    });
    expectShape(res.body, KnowledgeCollection);
    const call = h.doubles.assistant.last('CreateCollection');
    expect(call.request).to.deep.include({
      name: 'gigs',
      kind: 'events',
      time_zone: 'Europe/Berlin',
    });
    expect(call.context.organization).to.be.a('string').and.not.empty;
  });

  it('refuses an unknown kind before calling the service', async () => {
    const res = await h.send('POST', '/api/v2/knowledge/collections', {
      body: { name: 'gigs', kind: 'videos' },
    });
    expect(res.status).to.equal(400);
    expect(res.body.error.details[0].field).to.equal('/kind');
    expect(h.doubles.assistant.called('CreateCollection')).to.equal(0);
  });

  it('upserts documents as id plus the kind fields (JSON), at most 1,000 per call', async () => {
    h.doubles.assistant.on('UpsertDocuments', async (req) => ({
      count: req.documents.length,
      collection: req.collection,
    }));
    const res = await h.send('POST', '/api/v2/knowledge/collections/gigs/documents', {
      body: {
        documents: [
          {
            id: 'e1',
            title: 'Jazz night',
            startsAt: '2026-11-21T20:00:00+01:00',
            tags: ['concert'],
          },
        ],
      },
    });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ collection: 'gigs', count: 1, requestId: res.requestId });
    expectShape(res.body, WriteDocumentsResponse);
    const sent = h.doubles.assistant.last('UpsertDocuments').request;
    expect(sent.collection).to.equal('gigs');
    expect(sent.documents[0].id).to.equal('e1');
    expect(JSON.parse(sent.documents[0].fields_json)).to.deep.equal({
      title: 'Jazz night',
      startsAt: '2026-11-21T20:00:00+01:00',
      tags: ['concert'],
    });
    const tooMany = await h.send('POST', '/api/v2/knowledge/collections/gigs/documents', {
      body: { documents: Array.from({ length: 1001 }, (_, i) => ({ id: `e${i}`, title: 't' })) },
    });
    expect(tooMany.status).to.equal(400);
    expect(tooMany.body.error.details[0].field).to.equal('/documents');
  });

  it("passes the service's field problems through as a 400 with their paths", async () => {
    h.doubles.assistant.on('UpsertDocuments', async () => {
      throw new AppError('invalid_request', '1 problem(s) in the documents', [
        { field: '/documents/0/startsAt', reason: 'is required' },
      ]);
    });
    const res = await h.send('POST', '/api/v2/knowledge/collections/gigs/documents', {
      body: { documents: [{ id: 'e1', title: 'x' }] },
    });
    expect(res.status).to.equal(400);
    expect(res.body.error.details).to.deep.equal([
      { field: '/documents/0/startsAt', reason: 'is required' },
    ]);
  });

  it('imports a file, lists a page and reads one document', async () => {
    h.doubles.assistant.on('ImportDocuments', async (req) => ({
      count: req.content.split('\n').length,
      collection: req.collection,
    }));
    const imported = await h.send('POST', '/api/v2/knowledge/collections/gigs/import', {
      body: { format: 'csv', content: 'id,title\na,A' },
    });
    expect(imported.body.count).to.equal(2);
    expect(h.doubles.assistant.last('ImportDocuments').request).to.deep.include({
      collection: 'gigs',
      format: 'csv',
    });
    const doc = {
      id: 'a',
      collection: 'gigs',
      fields_json: '{"title":"A","startsAt":"2026-11-21T20:00:00Z"}',
      chunks: 1,
      updated_at: '2026-11-20T10:00:00.000Z',
    };
    h.doubles.assistant.on('ListDocuments', async () => ({ documents: [doc], next_after: 'a' }));
    const page = await h.send('GET', '/api/v2/knowledge/collections/gigs/documents?limit=1');
    expect(page.body).to.deep.equal({
      documents: [
        {
          id: 'a',
          collection: 'gigs',
          fields: { title: 'A', startsAt: '2026-11-21T20:00:00Z' },
          chunks: 1,
          updatedAt: doc.updated_at,
        },
      ],
      nextAfter: 'a',
    });
    expectShape(page.body, KnowledgeDocumentList);
    expect(h.doubles.assistant.last('ListDocuments').request).to.deep.include({
      collection: 'gigs',
      limit: 1,
      after: '',
    });
    h.doubles.assistant.on('GetDocument', async () => doc);
    const one = await h.send('GET', '/api/v2/knowledge/collections/gigs/documents/a');
    expectShape(one.body, KnowledgeDocument);
  });

  it('imports a JSON array sent as it is, and passes the field map of the query or the body', async () => {
    h.doubles.assistant.on('ImportDocuments', async (req) => ({
      count: 1,
      collection: req.collection,
      metadata_fields: ['Straße'],
    }));
    const array = '[{"id":"a","Titel":"Fest","Straße":"Hauptstraße 5"}]';
    const imported = await h.send(
      'POST',
      `/api/v2/knowledge/collections/gigs/import?fieldMap=${encodeURIComponent('{"Titel":"title"}')}`,
      { raw: array, headers: { 'content-type': 'application/json' } },
    );
    expect(imported.status, JSON.stringify(imported.body)).to.equal(200);
    expect(imported.body).to.include({ collection: 'gigs', count: 1 });
    expect(imported.body.metadataFields).to.deep.equal(['Straße']);
    expectShape(imported.body, ImportDocumentsResponse);
    expect(h.doubles.assistant.last('ImportDocuments').request).to.deep.include({
      format: 'json',
      content: array,
      field_map: { Titel: 'title' },
    });
    const wrapped = await h.send('POST', '/api/v2/knowledge/collections/gigs/import', {
      body: { format: 'csv', content: 'Nr,Titel\n1,A', fieldMap: { Nr: 'id', Titel: 'title' } },
    });
    expect(wrapped.status).to.equal(200);
    expect(h.doubles.assistant.last('ImportDocuments').request.field_map).to.deep.equal({
      Nr: 'id',
      Titel: 'title',
    });
    const calls = h.doubles.assistant.called('ImportDocuments');
    for (const bad of ['{"Preis":1}', 'Preis:price', '["price"]']) {
      const refused = await h.send(
        'POST',
        `/api/v2/knowledge/collections/gigs/import?fieldMap=${encodeURIComponent(bad)}`,
        { body: { format: 'csv', content: 'id\n1' } },
      );
      expect(refused.status, bad).to.equal(400);
      expect(refused.body.error.details[0].field).to.equal('/fieldMap');
    }
    const empty = await h.send('POST', '/api/v2/knowledge/collections/gigs/import', {
      raw: '[]',
      headers: { 'content-type': 'application/json' },
    });
    expect(empty.status).to.equal(400);
    expect(h.doubles.assistant.called('ImportDocuments')).to.equal(calls);
  });

  it('deletes one document (204, 404 when absent) and batches by id', async () => {
    h.doubles.assistant.on('DeleteDocuments', async (req) => ({
      count: req.ids.includes('missing') ? 0 : req.ids.length,
      collection: req.collection,
    }));
    expect(
      (await h.send('DELETE', '/api/v2/knowledge/collections/gigs/documents/a')).status,
    ).to.equal(204);
    const missing = await h.send('DELETE', '/api/v2/knowledge/collections/gigs/documents/missing');
    expect(missing.status).to.equal(404);
    const batch = await h.send('POST', '/api/v2/knowledge/collections/gigs/documents/delete', {
      body: { ids: ['a', 'b'] },
    });
    expect(batch.body.count).to.equal(2);
  });
});

import { AppError } from '@switchyard/shared';
import { contractSuite, silentLogger } from '@switchyard/shared/testing';
import { DataUpdatedPublisher } from '@switchyard/shared';
import { KnowledgeService } from '../src/knowledge/knowledge-service';
import { type KnowledgeStore } from '../src/store/knowledge/port';
import { InMemoryKnowledgeStore } from '../src/store/knowledge/memory';
import { MongoKnowledgeStore } from '../src/store/knowledge/mongo';
import { expect } from './chai';
import { mongoBackend, RecordingBus } from './helpers';

/** One backend per test; every store opened on it sees the same data (as replicas do). */
interface Backend {
  open(): Promise<KnowledgeStore>;
  cleanup(): Promise<void>;
}

const NOW = () => new Date('2026-11-18T10:00:00Z');

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'expected a failure').to.be.instanceOf(AppError);
  return error as AppError;
}

function event(id: string, overrides: Record<string, unknown> = {}) {
  return {
    id,
    fields: {
      title: `Event ${id}`,
      startsAt: '2026-11-21T20:00:00+01:00',
      city: 'Berlin',
      ...overrides,
    },
  };
}

contractSuite<Backend>(
  'Knowledge bases',
  {
    memory: {
      async create() {
        const store = new InMemoryKnowledgeStore();
        return { open: async () => store, cleanup: async () => undefined };
      },
    },
    mongo: mongoBackend(async (db) => {
      const store = new MongoKnowledgeStore(db);
      await store.ensureIndexes();
      return store;
    }),
  },
  (backend) => {
    async function service() {
      const bus = new RecordingBus();
      return {
        knowledge: new KnowledgeService(
          await backend().open(),
          new DataUpdatedPublisher(bus, silentLogger(), 'assistant'),
          NOW,
        ),
        bus,
      };
    }

    it('creates a collection once per organization; the same name in another organization is another collection', async () => {
      const { knowledge } = await service();
      const created = await knowledge.createCollection('org_a', {
        name: 'events',
        kind: 'events',
        timeZone: 'Europe/Berlin',
      });
      expect(created).to.include({
        name: 'events',
        kind: 'events',
        timeZone: 'Europe/Berlin',
        documentCount: 0,
      });
      expect(
        (await failure(knowledge.createCollection('org_a', { name: 'events', kind: 'articles' })))
          .code,
      ).to.equal('conflict');
      await knowledge.createCollection('org_b', { name: 'events', kind: 'articles' });
      expect((await knowledge.collection('org_b', 'events')).kind).to.equal('articles');
      expect((await knowledge.store.listCollections('org_a')).map((c) => c.name)).to.deep.equal([
        'events',
      ]);
    });

    it('refuses a bad kind, name or time zone with every problem listed', async () => {
      const { knowledge } = await service();
      const error = await failure(
        knowledge.createCollection('org_a', {
          name: 'Bad Name',
          kind: 'videos',
          timeZone: 'Mars/Base',
        }),
      );
      expect(error.code).to.equal('invalid_request');
      expect(error.details.map((d) => d.field)).to.deep.equal(['/name', '/kind', '/time_zone']);
    });

    it('upserts a batch, announces it as data.updated and reads documents back (get, pages)', async () => {
      const { knowledge, bus } = await service();
      await knowledge.createCollection('org_a', { name: 'gigs', kind: 'events' });
      const batch = Array.from({ length: 25 }, (_, i) => event(`e${String(i).padStart(2, '0')}`));
      expect(await knowledge.upsert('org_a', 'gigs', batch)).to.equal(25);
      expect(bus.published.map((e) => [e.type, e.organization, e.data])).to.deep.equal([
        ['data.updated', 'org_a', { dataset: 'gigs', count: 25 }],
      ]);
      expect((await knowledge.collection('org_a', 'gigs')).documentCount).to.equal(25);
      const doc = await knowledge.document('org_a', 'gigs', 'e03');
      expect(doc.fields).to.deep.include({ title: 'Event e03', city: 'Berlin' });
      const first = await knowledge.list('org_a', 'gigs', 10);
      expect(first.documents.map((d) => d.id)).to.deep.equal(batch.slice(0, 10).map((b) => b.id));
      const last = await knowledge.list('org_a', 'gigs', 10, 'e19');
      expect(last.documents.map((d) => d.id)).to.deep.equal(['e20', 'e21', 'e22', 'e23', 'e24']);
      expect(last.nextAfter).to.equal(undefined);
      expect(first.nextAfter).to.equal('e09');
    });

    it('replaces a document with the same id and deletes in batches', async () => {
      const { knowledge, bus } = await service();
      await knowledge.createCollection('org_a', { name: 'gigs', kind: 'events' });
      await knowledge.upsert('org_a', 'gigs', [event('a'), event('b'), event('c')]);
      await knowledge.upsert('org_a', 'gigs', [event('a', { title: 'Renamed' })]);
      expect((await knowledge.document('org_a', 'gigs', 'a')).fields.title).to.equal('Renamed');
      expect(await knowledge.delete('org_a', 'gigs', ['a', 'b', 'missing'])).to.equal(2);
      expect((await knowledge.collection('org_a', 'gigs')).documentCount).to.equal(1);
      expect(bus.published.map((e) => e.data)).to.deep.equal([
        { dataset: 'gigs', count: 3 },
        { dataset: 'gigs', count: 1 },
        { dataset: 'gigs', count: 2 },
      ]);
      expect((await failure(knowledge.document('org_a', 'gigs', 'a'))).code).to.equal('not_found');
    });

    it('validates every document of a batch against its kind and writes nothing when one is bad', async () => {
      const { knowledge, bus } = await service();
      await knowledge.createCollection('org_a', { name: 'gigs', kind: 'events' });
      const error = await failure(
        knowledge.upsert('org_a', 'gigs', [
          event('ok'),
          { id: 'x', fields: { title: 'No date', price: -1 } },
          event('ok'),
          { id: 'bad id!', fields: { title: 't', startsAt: 'soon' } },
        ]),
      );
      expect(error.code).to.equal('invalid_request');
      expect(error.details).to.deep.include.members([
        { field: '/documents/1/startsAt', reason: 'is required' },
        { field: '/documents/1/price', reason: 'must be >= 0' },
        { field: '/documents/2/id', reason: 'repeats an earlier id of the batch' },
        { field: '/documents/3/startsAt', reason: 'must match format "date-time"' },
      ]);
      expect((await knowledge.collection('org_a', 'gigs')).documentCount).to.equal(0);
      expect(bus.published).to.have.length(0);
    });

    it('takes at most 1,000 documents per batch', async () => {
      const { knowledge } = await service();
      await knowledge.createCollection('org_a', { name: 'gigs', kind: 'events' });
      const error = await failure(
        knowledge.upsert(
          'org_a',
          'gigs',
          Array.from({ length: 1001 }, (_, i) => event(`e${i}`)),
        ),
      );
      expect(error.code).to.equal('payload_too_large');
      expect(
        await knowledge.upsert(
          'org_a',
          'gigs',
          Array.from({ length: 1000 }, (_, i) => event(`e${i}`)),
        ),
      ).to.equal(1000);
    });

    it('imports JSON Lines and CSV (a course curriculum with one row per lesson)', async () => {
      const { knowledge, bus } = await service();
      await knowledge.createCollection('org_a', { name: 'gigs', kind: 'events' });
      const jsonl = [event('j1'), event('j2')]
        .map((e) => JSON.stringify({ id: e.id, ...e.fields }))
        .join('\n');
      expect(await knowledge.import('org_a', 'gigs', 'jsonl', `${jsonl}\n\n`)).to.deep.equal({
        count: 2,
        metadataFields: [],
      });
      await knowledge.createCollection('org_a', { name: 'courses', kind: 'courses' });
      const csv = [
        'id,title,level,url,tags,module,lesson,lesson_summary',
        'py,"Python, from zero",beginner,https://learn.example/py,python|data,Basics,Variables,"Names, values"',
        'py,"Python, from zero",beginner,https://learn.example/py,python|data,Basics,Loops,',
        'py,"Python, from zero",beginner,https://learn.example/py,python|data,Pandas,DataFrames,',
        'sql,SQL,intermediate,https://learn.example/sql,,Queries,SELECT,',
      ].join('\n');
      expect((await knowledge.import('org_a', 'courses', 'csv', csv)).count).to.equal(2);
      const py = await knowledge.document('org_a', 'courses', 'py');
      expect(py.fields).to.deep.equal({
        title: 'Python, from zero',
        level: 'beginner',
        url: 'https://learn.example/py',
        tags: ['python', 'data'],
        modules: [
          {
            title: 'Basics',
            lessons: [{ title: 'Variables', summary: 'Names, values' }, { title: 'Loops' }],
          },
          { title: 'Pandas', lessons: [{ title: 'DataFrames' }] },
        ],
      });
      expect(bus.published.map((e) => e.data)).to.deep.equal([
        { dataset: 'gigs', count: 2 },
        { dataset: 'courses', count: 2 },
      ]);
    });

    it('imports a CSV with headers of its own language: mapped ones as fields, the others kept as searchable metadata', async () => {
      const { knowledge } = await service();
      await knowledge.createCollection('org_a', { name: 'termine', kind: 'events' });
      const csv =
        '\uFEFFNr;Titel;Beginn;Stadt;Preis;Einlass;Straße\r\n' +
        'k1;Orgelkonzert im Dom;2026-12-04T19:30:00+01:00;Köln;12,50;18:45 Uhr;Domkloster 4\r\n';
      const imported = await knowledge.import('org_a', 'termine', 'csv', csv, {
        Nr: 'id',
        Titel: 'title',
        Beginn: 'startsAt',
        Stadt: 'city',
        Preis: 'price',
      });
      expect(imported).to.deep.equal({ count: 1, metadataFields: ['Einlass', 'Straße'] });
      const stored = await knowledge.document('org_a', 'termine', 'k1');
      expect(stored.fields).to.deep.equal({
        title: 'Orgelkonzert im Dom',
        startsAt: '2026-12-04T19:30:00+01:00',
        city: 'Köln',
        price: 12.5,
        metadata: { Einlass: '18:45 Uhr', Straße: 'Domkloster 4' },
      });
      expect(stored.chunks[0]).to.include('Einlass: 18:45 Uhr').and.include('Straße: Domkloster 4');
    });

    it('reports the line of a broken JSON Lines import and the column of a bad CSV row', async () => {
      const { knowledge } = await service();
      await knowledge.createCollection('org_a', { name: 'gigs', kind: 'events' });
      const broken = await failure(
        knowledge.import(
          'org_a',
          'gigs',
          'jsonl',
          `${JSON.stringify({ id: 'a', ...event('a').fields })}\n{not json`,
        ),
      );
      expect(broken.details[0]?.field).to.equal('/content/line/2');
      const csv = 'id,title,startsAt,price\na,Gig,2026-12-01T20:00:00Z,cheap';
      const bad = await failure(knowledge.import('org_a', 'gigs', 'csv', csv));
      expect(bad.details).to.deep.equal([
        { field: '/content/row/1/price', reason: 'must be number' },
      ]);
      expect(
        (await failure(knowledge.import('org_a', 'gigs', 'xml', '<a/>'))).details[0]?.field,
      ).to.equal('/format');
    });

    it('chunks long texts so every chunk carries the title', async () => {
      const { knowledge } = await service();
      await knowledge.createCollection('org_a', { name: 'help', kind: 'articles' });
      const body = Array.from(
        { length: 40 },
        (_, i) => `Paragraph ${i} explains refunds and returns in some detail for customers.`,
      ).join('\n\n');
      await knowledge.upsert('org_a', 'help', [
        { id: 'refunds', fields: { title: 'Refund policy', body } },
      ]);
      const doc = await knowledge.document('org_a', 'help', 'refunds');
      expect(doc.chunks.length).to.be.greaterThan(1);
      for (const chunk of doc.chunks)
        expect(chunk.length).to.be.at.most(1200 + 'Refund policy\n'.length);
      for (const chunk of doc.chunks) expect(chunk.startsWith('Refund policy')).to.equal(true);
      expect(doc.chunks.join(' ')).to.include('Paragraph 39');
    });

    it('never shows one organization the documents of another', async () => {
      const { knowledge } = await service();
      await knowledge.createCollection('org_a', { name: 'gigs', kind: 'events' });
      await knowledge.upsert('org_a', 'gigs', [event('secret')]);
      expect((await failure(knowledge.collection('org_b', 'gigs'))).code).to.equal('not_found');
      expect((await failure(knowledge.document('org_b', 'gigs', 'secret'))).code).to.equal(
        'not_found',
      );
      expect((await failure(knowledge.upsert('org_b', 'gigs', [event('x')]))).code).to.equal(
        'not_found',
      );
      await knowledge.createCollection('org_b', { name: 'gigs', kind: 'events' });
      expect((await knowledge.list('org_b', 'gigs', 100)).documents).to.deep.equal([]);
      expect(await knowledge.store.allDocuments('org_b', 'gigs')).to.deep.equal([]);
      expect(await knowledge.delete('org_b', 'gigs', ['secret'])).to.equal(0);
      expect((await knowledge.document('org_a', 'gigs', 'secret')).id).to.equal('secret');
    });

    it('a second replica on the same data sees every write; deleting a collection removes its documents', async () => {
      const { knowledge } = await service();
      const replica = await backend().open();
      await knowledge.createCollection('org_a', { name: 'gigs', kind: 'events' });
      await knowledge.upsert('org_a', 'gigs', [event('a'), event('b')]);
      expect((await replica.getCollection('org_a', 'gigs'))?.revision).to.equal(1);
      expect((await replica.allDocuments('org_a', 'gigs')).map((d) => d.id).sort()).to.deep.equal([
        'a',
        'b',
      ]);
      expect(await replica.deleteCollection('org_a', 'gigs')).to.equal(true);
      expect(await knowledge.store.allDocuments('org_a', 'gigs')).to.deep.equal([]);
      expect(await knowledge.store.deleteCollection('org_a', 'gigs')).to.equal(false);
    });

    it('lists every collection after concurrent creates, writes and deletes on two replicas, with current revisions', async () => {
      const { knowledge } = await service();
      const replica = new KnowledgeService(
        await backend().open(),
        new DataUpdatedPublisher(new RecordingBus(), silentLogger(), 'assistant'),
        NOW,
      );
      const names = Array.from({ length: 8 }, (_, i) => `c${i}`);
      await Promise.all(
        names.map((name, i) =>
          (i % 2 ? replica : knowledge).createCollection('org_a', { name, kind: 'events' }),
        ),
      );
      await knowledge.createCollection('org_b', { name: 'other', kind: 'events' });
      expect((await replica.store.listCollections('org_a')).map((c) => c.name)).to.deep.equal(
        names,
      );
      await Promise.all([
        ...names
          .slice(0, 4)
          .map((name, i) =>
            (i % 2 ? replica : knowledge).upsert('org_a', name, [event(`${name}_doc`)]),
          ),
        ...names
          .slice(4)
          .map((name, i) =>
            (i % 2 ? replica.store : knowledge.store).deleteCollection('org_a', name),
          ),
      ]);
      const listed = await knowledge.store.listCollections('org_a');
      expect(listed.map((c) => [c.name, c.revision, c.documentCount])).to.deep.equal(
        names.slice(0, 4).map((name) => [name, 1, 1]),
      );
      expect(listed[0]).to.deep.equal(await replica.store.getCollection('org_a', 'c0'));
      expect((await replica.store.listCollections('org_b')).map((c) => c.name)).to.deep.equal([
        'other',
      ]);
      expect(await replica.store.listCollections('org_c')).to.deep.equal([]);
    });
  },
);

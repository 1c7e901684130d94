import { silentLogger } from '@switchyard/shared/testing';
import type { Embedder } from '../src/knowledge/embedder';
import { DataUpdatedPublisher } from '@switchyard/shared';
import { KnowledgeService } from '../src/knowledge/knowledge-service';
import { InMemoryKnowledgeStore } from '../src/store/knowledge/memory';
import { resolveDateRange } from '../src/retrieval/date-phrases';
import { KnowledgeRetriever } from '../src/retrieval/knowledge-retriever';
import { fusedScores } from '../src/retrieval/rank-fusion';
import { expect } from './chai';
import { RecordingBus } from './helpers';
import {
  berlinConcertsThisWeekend,
  SAMPLE_COURSES_CSV,
  SAMPLE_NOW,
  SAMPLE_ZONE,
  sampleEvents,
} from './sample-knowledge';

const now = () => SAMPLE_NOW;
const iso = (d: Date | undefined) => d?.toISOString();

describe("date phrases (resolved in the organization's time zone)", () => {
  const range = (text: string, zone = SAMPLE_ZONE) => {
    const r = resolveDateRange(text, SAMPLE_NOW, zone);
    return r && [iso(r.from), iso(r.to)];
  };

  it('this weekend, next weekend, tomorrow, next Friday, in March, this month', () => {
    expect(range('concerts this weekend')).to.deep.equal([
      '2026-11-20T23:00:00.000Z',
      '2026-11-22T23:00:00.000Z',
    ]);
    expect(range('anything next weekend?')).to.deep.equal([
      '2026-11-27T23:00:00.000Z',
      '2026-11-29T23:00:00.000Z',
    ]);
    expect(range('tomorrow')).to.deep.equal([
      '2026-11-18T23:00:00.000Z',
      '2026-11-19T23:00:00.000Z',
    ]);
    expect(range('next Friday')).to.deep.equal([
      '2026-11-19T23:00:00.000Z',
      '2026-11-20T23:00:00.000Z',
    ]);
    expect(range('on wednesday')).to.deep.equal([
      '2026-11-17T23:00:00.000Z',
      '2026-11-18T23:00:00.000Z',
    ]);
    expect(range('what is on in March')).to.deep.equal([
      '2027-02-28T23:00:00.000Z',
      '2027-03-31T22:00:00.000Z',
    ]);
    expect(range('this month')).to.deep.equal([
      '2026-11-17T23:00:00.000Z',
      '2026-11-30T23:00:00.000Z',
    ]);
    expect(range('concerts in Berlin')).to.equal(undefined);
    expect(range('I may go')).to.equal(undefined);
  });

  it('reads the same spans in Spanish, German and French (ranges, not points)', () => {
    const weekend = ['2026-11-20T23:00:00.000Z', '2026-11-22T23:00:00.000Z'];
    for (const text of [
      '¿qué conciertos hay en Barcelona este fin de semana?',
      'Konzerte am Wochenende in Berlin',
      'des concerts ce week-end ?',
    ])
      expect(range(text), text).to.deep.equal(weekend);
    const nextWeekend = ['2026-11-27T23:00:00.000Z', '2026-11-29T23:00:00.000Z'];
    for (const text of ['el próximo fin de semana', 'nächstes Wochenende', 'le week-end prochain'])
      expect(range(text), text).to.deep.equal(nextWeekend);
    const tomorrow = ['2026-11-18T23:00:00.000Z', '2026-11-19T23:00:00.000Z'];
    for (const text of ['mañana', 'morgen Abend', 'demain'])
      expect(range(text), text).to.deep.equal(tomorrow);
    for (const text of ['en marzo', 'im März', 'en mars'])
      expect(range(text), text).to.deep.equal([
        '2027-02-28T23:00:00.000Z',
        '2027-03-31T22:00:00.000Z',
      ]);
    // Greetings and times of day are not dates.
    expect(range('Guten Morgen!')).to.equal(undefined);
    expect(range('por la mañana')).to.equal(undefined);
  });

  it('depends on the zone: the same instant is another day in Tokyo', () => {
    const late = new Date('2026-11-20T16:00:00Z'); // Friday 17:00 in Berlin, Saturday 01:00 in Tokyo
    const tokyo = resolveDateRange('tomorrow', late, 'Asia/Tokyo');
    expect(iso(tokyo?.from)).to.equal('2026-11-21T15:00:00.000Z');
  });
});

describe('knowledge retrieval', () => {
  async function organization(embedder?: Embedder) {
    const store = new InMemoryKnowledgeStore();
    const knowledge = new KnowledgeService(
      store,
      new DataUpdatedPublisher(new RecordingBus(), silentLogger(), 'assistant'),
      now,
      embedder,
    );
    const events = sampleEvents();
    await knowledge.createCollection('org_a', {
      name: 'events',
      kind: 'events',
      timeZone: SAMPLE_ZONE,
    });
    await knowledge.import(
      'org_a',
      'events',
      'jsonl',
      events.map((e) => JSON.stringify(e)).join('\n'),
    );
    await knowledge.createCollection('org_a', { name: 'courses', kind: 'courses' });
    await knowledge.import('org_a', 'courses', 'csv', SAMPLE_COURSES_CSV);
    return { knowledge, events, retriever: new KnowledgeRetriever(store, now, embedder) };
  }

  it('"concerts in Berlin this weekend" returns exactly the matching upcoming events, in date order', async () => {
    const { retriever, events } = await organization();
    const expected = berlinConcertsThisWeekend(events);
    expect(expected.length, 'the sample must have some').to.be.greaterThan(0);
    const found = await retriever.retrieve({
      organization: 'org_a',
      text: 'Any concerts in Berlin this weekend?',
      kinds: ['events'],
      limit: 50,
    });
    expect(found.results.map((r) => r.doc.id)).to.deep.equal(expected.map((e) => e.id));
    const query = found.queries.get('events');
    expect(query).to.deep.include({ cities: ['Berlin'], tags: ['concert'], terms: [] });
  });

  it('never offers past events, even when asked for all of them', async () => {
    const { retriever, events } = await organization();
    const found = await retriever.retrieve({
      organization: 'org_a',
      text: 'comedy in Hamburg',
      kinds: ['events'],
      limit: 500,
    });
    const expected = events.filter(
      (e) =>
        e.city === 'Hamburg' &&
        e.tags.includes('comedy') &&
        Date.parse(e.startsAt) >= SAMPLE_NOW.getTime(),
    );
    expect(
      events.some(
        (e) =>
          e.city === 'Hamburg' &&
          e.tags.includes('comedy') &&
          Date.parse(e.startsAt) < SAMPLE_NOW.getTime(),
      ),
    ).to.equal(true);
    expect(found.results.map((r) => r.doc.id).sort()).to.deep.equal(
      expected.map((e) => e.id).sort(),
    );
  });

  it('an audience ("for kids") is read from tags and description, not from names in a title', async () => {
    const { knowledge, retriever } = await organization();
    const at = new Date(SAMPLE_NOW.getTime() + 2 * 86_400_000).toISOString();
    const rows = [
      { id: 'f1', title: 'Sagrada Familia Choir', startsAt: at, city: 'Gotham', tags: ['concert'] },
      {
        id: 'f2',
        title: 'Puppet Morning',
        startsAt: at,
        city: 'Gotham',
        tags: ['theatre'],
        description: 'A show for kids aged 3 and up.',
      },
      { id: 'f3', title: 'Magic Show', startsAt: at, city: 'Gotham', description: 'For children.' },
    ];
    await knowledge.import(
      'org_a',
      'events',
      'jsonl',
      rows.map((r) => JSON.stringify(r)).join('\n'),
    );
    const found = await retriever.retrieve({
      organization: 'org_a',
      text: 'anything for kids in Gotham?',
      kinds: ['events'],
      limit: 50,
    });
    expect(found.results.map((r) => r.doc.id).sort()).to.deep.equal(['f2', 'f3']);
  });

  it('filters by price and searches the remaining words with BM25', async () => {
    const { retriever, events } = await organization();
    const cheap = await retriever.retrieve({
      organization: 'org_a',
      text: 'theatre in Vienna under 20 euros',
      kinds: ['events'],
      limit: 500,
    });
    const expected = events.filter(
      (e) =>
        e.city === 'Vienna' &&
        e.tags.includes('theatre') &&
        e.price <= 20 &&
        Date.parse(e.startsAt) >= SAMPLE_NOW.getTime(),
    );
    expect(cheap.results.map((r) => r.doc.id).sort()).to.deep.equal(
      expected.map((e) => e.id).sort(),
    );
    const jazz = await retriever.retrieve({
      organization: 'org_a',
      text: 'jazz standards in Munich',
      kinds: ['events'],
      limit: 500,
    });
    const jazzy = events.filter(
      (e) =>
        e.city === 'Munich' &&
        e.description.includes('jazz') &&
        Date.parse(e.startsAt) >= SAMPLE_NOW.getTime(),
    );
    expect(jazz.results.map((r) => r.doc.id).sort()).to.deep.equal(jazzy.map((e) => e.id).sort());
  });

  it('filters courses by level and finds lessons inside the curriculum', async () => {
    const { retriever } = await organization();
    const beginner = await retriever.retrieve({
      organization: 'org_a',
      text: 'a course for beginners',
      kinds: ['courses'],
    });
    expect(beginner.results.map((r) => r.doc.id)).to.deep.equal(['py101']);
    const crossValidation = await retriever.retrieve({
      organization: 'org_a',
      text: 'where do I learn cross-validation?',
      kinds: ['courses'],
    });
    expect(crossValidation.results[0]?.doc.id).to.equal('ml201');
    expect(crossValidation.results[0]?.passage).to.include('Cross-validation');
  });

  it('applies a filter only to the kinds it concerns; a kind named as such is listed', async () => {
    const { retriever, events } = await organization();
    const beginners = await retriever.retrieve({
      organization: 'org_a',
      text: 'which courses for beginners?',
    });
    expect(beginners.results.map((r) => r.doc.id)).to.deep.equal(['py101']);
    const allCourses = await retriever.retrieve({
      organization: 'org_a',
      text: 'what courses do you have?',
      kinds: ['courses'],
    });
    expect(allCourses.results.map((r) => r.doc.id)).to.deep.equal(['py101', 'ml201', 'ux301']);
    const whatsOn = await retriever.retrieve({
      organization: 'org_a',
      text: "what's on?",
      kinds: ['events'],
      limit: 3,
    });
    const upcoming = events
      .filter((e) => Date.parse(e.startsAt) >= SAMPLE_NOW.getTime())
      .sort((a, b) => Date.parse(a.startsAt) - Date.parse(b.startsAt));
    expect(whatsOn.results.map((r) => r.doc.id)).to.deep.equal(
      upcoming.slice(0, 3).map((e) => e.id),
    );
    expect(
      (await retriever.retrieve({ organization: 'org_a', text: 'hmm, interesting' })).results,
    ).to.deep.equal([]);
  });

  it('sees a write at once (the index follows the collection revision)', async () => {
    const { retriever, knowledge } = await organization();
    await knowledge.upsert('org_a', 'events', [
      {
        id: 'late',
        fields: {
          title: 'Late gig',
          city: 'Berlin',
          startsAt: '2026-11-21T23:00:00+01:00',
          tags: ['concert'],
          url: 'https://tickets.example/late',
        },
      },
    ]);
    const found = await retriever.retrieve({
      organization: 'org_a',
      text: 'concerts in Berlin this weekend',
      kinds: ['events'],
      limit: 50,
    });
    expect(found.results.map((r) => r.doc.id)).to.include('late');
  });

  it('finds words of any script, words whose stem changes when stemmed again, and metadata values', async () => {
    const { retriever, knowledge } = await organization();
    await knowledge.createCollection('org_a', { name: 'docs', kind: 'documents' });
    await knowledge.upsert('org_a', 'docs', [
      { id: 'tree', fields: { title: 'Ёлка', text: 'Новогодняя ёлка на площади' } },
      {
        id: 'walk',
        fields: {
          title: 'Stadtführung',
          text: 'Treffpunkt am Rathaus',
          metadata: { Straße: 'Kastanienallee 12' },
        },
      },
      { id: 'deg', fields: { title: 'Study', text: 'Degrees and diplomas of the college' } },
    ]);
    const ids = async (text: string) =>
      (await retriever.retrieve({ organization: 'org_a', text, kinds: ['documents'] })).results.map(
        (r) => r.doc.id,
      );
    expect(await ids('ёлка')).to.deep.equal(['tree']);
    expect(await ids('Kastanienallee')).to.deep.equal(['walk']);
    expect(await ids('Strasse')).to.deep.equal(['walk']);
    expect(await ids('degrees')).to.deep.equal(['deg']);
  });

  it('finds nothing of one organization for another', async () => {
    const { retriever } = await organization();
    const found = await retriever.retrieve({
      organization: 'org_b',
      text: 'concerts in Berlin this weekend',
    });
    expect(found.results).to.deep.equal([]);
    expect(found.collections).to.deep.equal([]);
  });

  it('fuses vector search with BM25 (RRF) when an embeddings model is configured', async () => {
    // Toy embedder: one dimension per concept, so "money back" and "refund" meet without sharing a word.
    const concepts = [/refund|money back|reimburs/i, /ticket|seat/i, /password|login/i];
    const embedder: Embedder = {
      embed: async (texts) => ({
        model: 'toy',
        vectors: texts.map((t) => concepts.map((c) => (c.test(t) ? 1 : 0))),
      }),
    };
    const { knowledge, retriever } = await organization(embedder);
    await knowledge.createCollection('org_a', { name: 'help', kind: 'articles' });
    await knowledge.upsert('org_a', 'help', [
      {
        id: 'money',
        fields: {
          title: 'Getting your money back',
          body: 'We reimburse cancelled orders within 5 days.',
          url: 'https://help.example/money',
        },
      },
      {
        id: 'login',
        fields: {
          title: 'Resetting your password',
          body: 'Use the login page link.',
          url: 'https://help.example/login',
        },
      },
    ]);
    const found = await retriever.retrieve({
      organization: 'org_a',
      text: 'refund',
      kinds: ['articles'],
    });
    expect(found.results.map((r) => r.doc.id)).to.deep.equal(['money']);
    const lexicalOnly = new KnowledgeRetriever(knowledge.store, now);
    expect(
      (await lexicalOnly.retrieve({ organization: 'org_a', text: 'refund', kinds: ['articles'] }))
        .results,
    ).to.deep.equal([]);
  });

  it('reciprocal rank fusion favours ids ranked well by both lists', () => {
    expect(
      fusedScores([
        ['a', 'b', 'c'],
        ['b', 'c', 'a', 'd'],
      ]).map(({ id }) => id),
    ).to.deep.equal(['b', 'a', 'c', 'd']);
  });
});

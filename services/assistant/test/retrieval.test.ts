import { expect } from './chai';
import { Bm25Index } from '../src/retrieval/bm25';
import { stem, tokenize } from '../src/retrieval/tokenize';
import { KnowledgeBase } from '../src/retrieval/knowledge-base';
import { EventSearch, mergeEventQueries, parseEventQuery } from '../src/retrieval/event-search';
import { CourseSearch, TemplateSearch } from '../src/retrieval/course-search';

describe('retrieval', () => {
  describe('tokenize and stem', () => {
    it('brings inflected forms together and drops stopwords', () => {
      expect(stem('refunds')).to.equal(stem('refunded'));
      expect(stem('shipping')).to.equal(stem('shipped'));
      expect(stem('enrolment')).to.equal(stem('enroll'));
      expect(tokenize('How do I get my money back?')).to.deep.equal(['money', 'back']);
      expect(tokenize('München Konzerte')).to.include('munchen');
    });
  });

  describe('BM25', () => {
    const index = new Bm25Index([
      { id: 'a', text: 'apple banana apple', item: 'a' },
      { id: 'b', text: 'banana cherry', item: 'b' },
      { id: 'c', text: 'cherry date elderberry fig grape', item: 'c' },
    ]);

    it('ranks by term weight: rare terms and repeated matches score higher', () => {
      expect(index.search('apple').map((h) => h.id)).to.deep.equal(['a']);
      const hits = index.search('banana cherry');
      expect(hits[0]?.id).to.equal('b');
      expect(hits.map((h) => h.id)).to.have.members(['a', 'b', 'c']);
      expect(hits[0]?.matchedTerms).to.have.members(['banana', 'cherry']);
    });

    it('returns nothing for a query without known terms', () => {
      expect(index.search('kiwi')).to.deep.equal([]);
      expect(index.search('the and of')).to.deep.equal([]);
    });
  });

  describe('knowledge base', () => {
    const kb = new KnowledgeBase();
    const best = (q: string) => kb.answer(q)[0]?.item.id;

    it('finds the article customers mean, in their words', () => {
      expect(best('how do I get my money back')).to.equal('kb-refunds');
      expect(best('where is my order')).to.equal('kb-order-status');
      expect(best('can I give my ticket to a friend')).to.equal('kb-ticket-transfer');
      expect(best('how do I rotate my API key')).to.equal('kb-api-keys');
      expect(best('my card was declined')).to.equal('kb-payment-failed');
      expect(best('the concert was cancelled')).to.equal('kb-ticket-refund');
      expect(best('how to verify webhook signatures')).to.equal('kb-webhook-signatures');
    });

    it('answers nothing when no article is about the question', () => {
      expect(kb.answer('what is the weather in Paris')).to.deep.equal([]);
      expect(kb.answer('do you sell pizza')).to.deep.equal([]);
    });
  });

  describe('events', () => {
    const search = new EventSearch();

    it('reads cities, months and categories from a question', () => {
      const query = parseEventQuery('any concerts in Berlin in June?');
      expect(query.cities).to.deep.equal(['Berlin']);
      expect(query.months).to.deep.equal([6]);
      expect(query.categories).to.deep.equal(['concert']);
      expect(parseEventQuery('may I see the list').months).to.deep.equal([]);
      expect(parseEventQuery("what's on in May").months).to.deep.equal([5]);
    });

    it('filters the database, soonest first', () => {
      const berlin = search.find(parseEventQuery('concerts in Berlin'));
      expect(berlin).to.have.length(3);
      expect(berlin.every((e) => e.city === 'Berlin' && e.category === 'concert')).to.equal(true);
      expect(berlin.map((e) => e.date)).to.deep.equal([...berlin.map((e) => e.date)].sort());
      const june = search.find(parseEventQuery("what's on in June"));
      expect(june.map((e) => e.id)).to.deep.equal([
        'evt-london-comedy-2027-06',
        'evt-berlin-jazz-2027-06',
        'evt-hamburg-rock-2027-06',
      ]);
    });

    it('completes a follow-up with the filters of the earlier question', () => {
      const merged = mergeEventQueries(
        parseEventQuery('concerts in Berlin'),
        parseEventQuery('what about June?'),
      );
      expect(search.find(merged).map((e) => e.id)).to.deep.equal(['evt-berlin-jazz-2027-06']);
    });
  });

  describe('courses and outline templates', () => {
    it('finds courses by subject and picks the template by topic field', () => {
      expect(new CourseSearch().find('Spanish')[0]?.id).to.equal('crs-spanish-a1');
      const templates = new TemplateSearch();
      expect(templates.forTopic('Python for data analysis')?.id).to.equal('tpl-programming');
      expect(templates.forTopic('conversational Spanish')?.id).to.equal('tpl-language');
      expect(templates.forTopic('underwater basket weaving')).to.equal(undefined);
    });
  });
});

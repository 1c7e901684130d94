import { expect } from 'chai';
import { scoreSentences, sentencesToKeep, summarize } from '../src/models/builtin/summarize';
import { splitSentences } from '../src/models/builtin/text';

const ARTICLE = [
  'Solar power has grown quickly over the last decade.',
  'Panels are now far cheaper than they were ten years ago.',
  'Many homeowners install solar panels to cut their electricity bills.',
  'Governments offer incentives that make solar power even more attractive to homeowners.',
  'However, solar power depends on sunlight, so energy storage matters.',
  'Batteries let homeowners use stored solar power at night.',
  'Grid operators are adapting their networks to the rise of solar power.',
  'My neighbour painted his fence blue on Tuesday.',
  'Analysts expect solar power to keep growing as panels and batteries get cheaper.',
  'The weather was pleasant.',
].join(' ');

describe('builtin summarizer', () => {
  it('splits pathological punctuation in linear time (1 MB of "!" once stalled the event loop for 5 s)', () => {
    // Quadratic backtracking would take minutes here, far past the test timeout.
    expect(
      splitSentences(`${'!'.repeat(200_000)} and then. ${'.'.repeat(200_000)}x`),
    ).to.have.length(1);
    expect(splitSentences(`Wow!!! It works. ${'a'.repeat(100_000)}. Next one`)).to.deep.equal([
      'Wow!!!',
      `It works. ${'a'.repeat(100_000)}.`,
      'Next one',
    ]);
  });

  const summaries = {
    short: summarize(ARTICLE, 'short'),
    medium: summarize(ARTICLE, 'medium'),
    long: summarize(ARTICLE, 'long'),
  };

  it('makes short < medium < long < input', () => {
    expect(summaries.short.length).to.be.greaterThan(0);
    expect(summaries.short.length).to.be.lessThan(summaries.medium.length);
    expect(summaries.medium.length).to.be.lessThan(summaries.long.length);
    expect(summaries.long.length).to.be.lessThan(ARTICLE.length);
  });

  it('only uses sentences of the input, in their original order', () => {
    const original = splitSentences(ARTICLE);
    for (const summary of Object.values(summaries)) {
      const picked = splitSentences(summary);
      const positions = picked.map((sentence) => original.indexOf(sentence));
      expect(positions).to.not.include(-1);
      expect([...positions].sort((a, b) => a - b)).to.deep.equal(positions);
    }
  });

  it('prefers central sentences over off-topic ones', () => {
    expect(summaries.medium).to.not.include('fence');
    expect(summaries.medium).to.not.include('weather');
    expect(summaries.short).to.match(/solar/i);
    const scores = scoreSentences(splitSentences(ARTICLE));
    expect(scores[7]).to.be.lessThan(scores[2]!);
  });

  it('keeps nested sentence counts and never more than the input has', () => {
    for (const n of [1, 2, 3, 4, 7]) {
      const counts = (['short', 'medium', 'long'] as const).map((t) => sentencesToKeep(n, t));
      expect(counts[2], `n=${n}`).to.be.at.most(n);
      expect(
        [...counts].sort((a, b) => a - b),
        `n=${n}`,
      ).to.deep.equal(counts);
    }
    expect(sentencesToKeep(3, 'long')).to.equal(3);
    expect(sentencesToKeep(10, 'short')).to.be.lessThan(sentencesToKeep(10, 'medium'));
    expect(sentencesToKeep(10, 'medium')).to.be.lessThan(sentencesToKeep(10, 'long'));
    expect(summarize('Just one sentence here.', 'long')).to.equal('Just one sentence here.');
  });

  it('does not split after abbreviations', () => {
    expect(
      splitSentences('Dr. Smith arrived at 5 p.m. today. He left e.g. early. Then it rained.'),
    ).to.have.length(3);
  });
});

import { expect } from 'chai';
import { countTokens as exactO200k } from 'gpt-tokenizer';
import {
  countTokens,
  countTokensOffThread,
  estimateTokens,
  EXACT_ESTIMATE_CHARS,
  MAX_RUN_CHARS,
  truncateToTokens,
} from '../src/index';

const PARAGRAPH =
  'The gateway counts tokens before it reserves quota; a long prompt must not hold the event loop. ';

describe('tokens: linear counting (issue 10, reproduction 1)', () => {
  it('counts ordinary text exactly as the o200k tokenizer does', () => {
    for (const text of ['', 'hello', PARAGRAPH.repeat(50), 'Grüße aus 東京, naïve café — ok?']) {
      expect(countTokens(text), text.slice(0, 20)).to.equal(text === '' ? 0 : exactO200k(text));
    }
  });

  it('counts a long unbroken run slice by slice, within two tokens per slice of the exact count', () => {
    for (const run of [
      '\u4e00'.repeat(1000),
      'abcdefghij'.repeat(100),
      '!?'.repeat(500),
      ' '.repeat(1000),
      '😀'.repeat(400),
    ]) {
      const slices = Math.ceil(run.length / MAX_RUN_CHARS);
      expect(Math.abs(countTokens(run) - exactO200k(run)), run.slice(0, 4)).to.be.at.most(
        2 * slices,
      );
    }
  });

  it('counts the 40,000-character CJK prompt of the reproduction (one token per character)', () => {
    expect(countTokens('\u4e00'.repeat(40_000))).to.equal(40_000);
  });

  it('truncates a long run to at most the token budget', () => {
    const cut = truncateToTokens('\u4e01'.repeat(5000), 300);
    expect(countTokens(cut)).to.be.at.most(300);
    expect('\u4e01'.repeat(5000).startsWith(cut)).to.equal(true);
  });
});

describe('tokens: estimate for limits', () => {
  it('is the exact count up to EXACT_ESTIMATE_CHARS', () => {
    const text = PARAGRAPH.repeat(Math.floor(EXACT_ESTIMATE_CHARS / PARAGRAPH.length));
    expect(estimateTokens(text)).to.equal(countTokens(text));
  });

  it('is within 5% of the count for long uniform text, and never above the UTF-8 length', () => {
    const english = PARAGRAPH.repeat(1500);
    expect(estimateTokens(english)).to.be.closeTo(
      countTokens(english),
      countTokens(english) * 0.05,
    );
    const cjk = '\u4e00'.repeat(40_000);
    expect(estimateTokens(cjk)).to.be.closeTo(40_000, 2000);
    const bytes = 'a'.repeat(100_000);
    expect(estimateTokens(bytes)).to.be.at.most(100_000);
  });
});

describe('tokens: counting off the event loop', () => {
  it('counts a huge text in a worker thread: the same count, while the event loop keeps turning', async () => {
    const prose = PARAGRAPH.repeat(300);
    const run = '\u4e00'.repeat(20_000);
    const text = `${prose}${run}`;
    let turned = false;
    setImmediate(() => (turned = true));
    const counted = await countTokensOffThread(text);
    // Counted inline, the promise would settle before the immediate callback ran.
    expect(turned).to.equal(true);
    // The long run is counted apart from the prose before it (see MAX_RUN_CHARS); counting the
    // parts, other texts, checks the worker's count rather than the count it left remembered.
    expect(counted).to.equal(countTokens(prose) + countTokens(run));
    expect(countTokens(text)).to.equal(counted);
  });

  it('counts a short text inline', async () => {
    expect(await countTokensOffThread(PARAGRAPH)).to.equal(exactO200k(PARAGRAPH));
  });
});

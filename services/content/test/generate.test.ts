import { expect } from 'chai';
import { AppError, countTokens } from '@switchyard/shared';
import { composePiece } from '../src/models/builtin/generate';
import { extractTopic } from '../src/models/builtin/subject';
import { resolveTone } from '../src/models/builtin/tone';
import { fitToTokens } from '../src/models/fit';

const PROMPT =
  'Write a product description for a waterproof hiking backpack with 30L capacity and padded straps';
const piece = (
  overrides: Partial<{ prompt: string; tone: string; language: string; maxTokens: number }> = {},
) => composePiece({ prompt: PROMPT, tone: 'formal', language: 'en', maxTokens: 256, ...overrides });

describe('builtin generation', () => {
  it('derives the subject and feature phrases from the prompt', () => {
    expect(extractTopic(PROMPT)).to.deep.equal({
      subject: 'Waterproof Hiking Backpack',
      keywords: ['30L capacity', 'padded straps'],
    });
    expect(extractTopic('Write a blog post about remote work').subject).to.equal('Remote Work');
    expect(extractTopic('A launch post for our new trail shoes').subject).to.equal('Trail Shoes');
  });

  it('writes a titled piece about the subject with emphasis and several sentences', () => {
    const text = piece();
    expect(text).to.match(/^\*\*Waterproof Hiking Backpack\*\*: /);
    expect(text).to.include('30L capacity');
    expect(text.split(/[.!?]\s/).length).to.be.greaterThan(4);
  });

  it('is deterministic for the same inputs and varies with the prompt', () => {
    expect(piece()).to.equal(piece());
    expect(piece({ prompt: 'Write about a solar lantern with a USB port' })).to.include(
      'Solar Lantern',
    );
  });

  it('changes wording with the tone', () => {
    const tones = ['formal', 'casual', 'persuasive', 'playful'].map((tone) => piece({ tone }));
    expect(new Set(tones).size).to.equal(4);
    const body = (text: string) => text.split('\n\n')[1]!;
    expect(new Set(tones.map(body)).size).to.equal(4);
  });

  it('maps adjective lists to the nearest tone and weaves them in', () => {
    expect(resolveTone('witty, warm').tone).to.equal('playful');
    expect(resolveTone('professional, friendly, professional').tone).to.equal('formal');
    expect(resolveTone('persuasive')).to.deep.equal({ tone: 'persuasive', adjectives: [] });
    expect(piece({ tone: 'witty, warm' })).to.match(/witty|warm/);
  });

  it('writes in en, fr, de and es with different wording', () => {
    const texts = ['en', 'fr', 'de', 'es'].map((language) => piece({ language }));
    expect(new Set(texts).size).to.equal(4);
    expect(texts[1]).to.match(/\b(le|la|les|et|pour|vous|une?)\b/);
    expect(texts[2]).to.match(/\b(und|Sie|ist|für|mit)\b/);
    expect(texts[3]).to.match(/\b(el|la|y|para|con|es)\b/);
    expect(piece({ language: 'de-DE' })).to.equal(piece({ language: 'de' }));
  });

  it('answers unsupported (422) for other languages, naming the supported ones', () => {
    try {
      piece({ language: 'it' });
      expect.fail('expected an error');
    } catch (error) {
      expect(error).to.be.instanceOf(AppError);
      expect((error as AppError).code).to.equal('unsupported');
      expect((error as AppError).httpStatus).to.equal(422);
      expect((error as AppError).message).to.include('en, fr, de, es');
    }
  });

  it('respects max_length in tokens and cuts at a boundary', () => {
    const full = piece();
    for (const maxTokens of [1, 5, 12, 30, 60]) {
      const text = piece({ maxTokens });
      expect(countTokens(text), `max ${maxTokens}`).to.be.at.most(maxTokens);
      expect(full.startsWith(text), `prefix at ${maxTokens}`).to.equal(true);
    }
    const cut = piece({ maxTokens: 40 });
    expect(cut).to.match(/[.!?]$/);
    expect(countTokens(full)).to.be.greaterThan(40);
  });

  it('fitToTokens falls back to a word boundary when no sentence fits', () => {
    const text = 'alpha beta gamma delta epsilon zeta eta theta iota kappa';
    const fitted = fitToTokens(text, 4);
    expect(countTokens(fitted)).to.be.at.most(4);
    expect(text.startsWith(fitted)).to.equal(true);
    expect(text.charAt(fitted.length)).to.equal(' ');
  });
});

import { AppError } from '@switchyard/shared';
import { normalizeLanguage } from '../language';
import { LANGUAGE_BANKS, SUPPORTED_LANGUAGES, type LanguageBank, type ToneBank } from './phrases';
import { fitToTokens } from '../fit';
import { extractTopic, type PromptTopic } from './subject';
import { hashString, seededRandom } from './text';
import { resolveTone, type ResolvedTone } from './tone';

export interface CompositionRequest {
  prompt: string;
  tone: string;
  language: string;
  maxTokens: number;
}

/** The builtin engine writes English unless told otherwise. */
function languageCode(language: string): string {
  return normalizeLanguage(language) || 'en';
}

export function languageBank(language: string): LanguageBank {
  const bank = LANGUAGE_BANKS[languageCode(language)];
  if (!bank) {
    throw AppError.unsupported(
      `the builtin model writes ${SUPPORTED_LANGUAGES.join(', ')}; language "${language}" is not supported`,
      [{ field: '/language', reason: 'unsupported language' }],
    );
  }
  return bank;
}

interface Composer {
  pick<T>(options: T[]): T;
  pickDistinct<T>(options: T[], count: number): T[];
}

function composer(seed: number): Composer {
  const random = seededRandom(seed);
  return {
    pick: (options) => options[Math.floor(random() * options.length)]!,
    pickDistinct: (options, count) => {
      const pool = [...options];
      const chosen = [];
      while (chosen.length < count && pool.length > 0)
        chosen.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
      return chosen;
    },
  };
}

function joinList(items: string[], and: string): string {
  return items.length <= 1
    ? (items[0] ?? '')
    : `${items.slice(0, -1).join(', ')} ${and} ${items[items.length - 1]}`;
}

function fill(template: string, values: Record<string, string>): string {
  const text = template.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Adjectives to use: the caller's own (English only, they are English words) or the tone's bank. */
function adjectivePool(tone: ResolvedTone, toneBank: ToneBank, language: string): string[] {
  return tone.adjectives.length > 0 && language === 'en' ? tone.adjectives : toneBank.adjectives;
}

function composeBody(
  topic: PromptTopic,
  bank: LanguageBank,
  toneBank: ToneBank,
  adjectives: string[],
  c: Composer,
): string[] {
  const keywords = topic.keywords.length > 0 ? topic.keywords : [topic.subject.toLowerCase()];
  const values = (extra: Record<string, string> = {}) => ({
    subject: topic.subject,
    keywords: joinList(keywords.slice(0, 3), bank.and),
    adj: c.pick(adjectives),
    ...extra,
  });
  const keywordTemplates = c.pickDistinct(
    bank.keywordSentences,
    Math.min(2, topic.keywords.length),
  );
  const keywordLines = keywordTemplates.map((template, i) =>
    fill(template, values({ keyword: topic.keywords[i]! })),
  );
  const details = c
    .pickDistinct(bank.detailSentences, 2)
    .map((template) => fill(template, values()));
  return [
    fill(c.pick(toneBank.openings), values()),
    ...keywordLines,
    ...details,
    fill(c.pick(toneBank.closings), values()),
  ];
}

/**
 * Composes a piece from the prompt's subject and keywords with the language's phrase bank in
 * the requested tone: a title line with emphasis, then a paragraph; cut to maxTokens.
 * Deterministic: the phrase choices are seeded by the request.
 */
export function composePiece(request: CompositionRequest): string {
  const language = languageCode(request.language);
  const bank = languageBank(language);
  const tone = resolveTone(request.tone);
  const toneBank = bank.tones[tone.tone];
  const topic = extractTopic(request.prompt);
  const c = composer(hashString(`${request.prompt}\u0000${request.tone}\u0000${language}`));
  const adjectives = adjectivePool(tone, toneBank, language);
  const title = `**${topic.subject}**: ${c.pick(toneBank.taglines)}`;
  const body = composeBody(topic, bank, toneBank, adjectives, c).join(' ');
  return fitToTokens(`${title}\n\n${body}`, request.maxTokens);
}

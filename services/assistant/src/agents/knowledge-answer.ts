import { DateTime } from 'luxon';
import { tagsOf, titleOf, urlOf } from '../knowledge/documents';
import type { CourseFields, EventFields } from '../knowledge/kinds';
import { hasPhrase, normalize } from '../language/normalize';
import { ITEM_ASPECTS } from '../language/lexicon';
import type { KnowledgeQuery } from '../retrieval/knowledge-query';
import type { Retrieval, RetrievedDocument } from '../retrieval/knowledge-retriever';
import { stem, tokenize, words } from '../retrieval/tokenize';
import type { ShownItem } from '../store/sessions/port';
import type { ContextItem, ItemAspect } from './types';

/** "[title](url)" for a retrieved document, or its bold title when it has no url (nothing else is ever linked). */
export function citation(found: RetrievedDocument): string {
  const title = titleOf(found.doc).replace(/[[\]]/g, '');
  const url = urlOf(found.doc);
  return url ? `[${title}](${url})` : `**${title}**`;
}

/**
 * When an event starts, in the venue's time: its own time zone when it has one, else the offset
 * it was published with, else the collection's (or organization's) zone.
 */
export function eventTime(event: EventFields, collectionZone: string): string {
  const explicitOffset = /[+-]\d\d:?\d\d$/.test(event.startsAt);
  const at = event.timeZone
    ? DateTime.fromISO(event.startsAt, { zone: event.timeZone })
    : explicitOffset
      ? DateTime.fromISO(event.startsAt, { setZone: true })
      : DateTime.fromISO(event.startsAt, { zone: collectionZone });
  return at.toFormat('ccc d LLL yyyy, HH:mm');
}

function priceText(price: number | undefined, currency: string | undefined): string | undefined {
  if (typeof price !== 'number') return undefined;
  return price === 0 ? 'free' : `from ${price} ${currency ?? ''}`.trim();
}

function eventLine(found: RetrievedDocument): string {
  const e = found.doc.fields as unknown as EventFields;
  const place = [e.venue, e.city].filter(Boolean).join(', ');
  return `${citation(found)} - ${[eventTime(e, found.collection.timeZone), place, priceText(e.price, e.currency)].filter(Boolean).join(' · ')}`;
}

function courseLine(found: RetrievedDocument): string {
  const c = found.doc.fields as unknown as CourseFields;
  const modules = c.modules.map((m) => m.title).join(', ');
  return `${citation(found)} - ${[c.level, priceText(c.price, c.currency), c.modules.length > 0 ? `${c.modules.length} modules: ${modules}` : undefined].filter(Boolean).join(' · ')}`;
}

function passageLine(found: RetrievedDocument): string {
  const text = found.passage.replace(/\s+/g, ' ').trim();
  return `${citation(found)}: ${text.length > 280 ? `${text.slice(0, 279)}…` : text}`;
}

export function knowledgeLine(found: RetrievedDocument): string {
  if (found.doc.kind === 'events') return eventLine(found);
  if (found.doc.kind === 'courses') return courseLine(found);
  return passageLine(found);
}

export function knowledgeItems(retrieval: Retrieval): ContextItem[] {
  return retrieval.results.map((found): ContextItem => ({ kind: 'knowledge', found }));
}

/** What a list shows, as remembered for "the second one". */
export function shownItem(found: RetrievedDocument): ShownItem {
  const fields = found.doc.fields as Partial<EventFields>;
  return {
    collection: found.collection.name,
    id: found.doc.id,
    title: titleOf(found.doc),
    ...(typeof fields.price === 'number' ? { price: fields.price } : {}),
    ...(fields.startsAt ? { startsAt: fields.startsAt } : {}),
  };
}

const NOUNS: Record<string, [string, string]> = {
  events: ['event', 'events'],
  courses: ['course', 'courses'],
  articles: ['article', 'articles'],
  documents: ['document', 'documents'],
};

/** A tag as a plural noun ("concert" -> "concerts"); tags are the organization's words, often singular. */
function plural(word: string): string {
  if (/s$/i.test(word)) return word;
  if (/[^aeiou]y$/i.test(word)) return `${word.slice(0, -1)}ies`;
  return /(ch|sh|x)$/i.test(word) ? `${word}es` : `${word}s`;
}

/** "concerts for kids in Madrid from Sat 21 Nov to Sun 22 Nov up to 20": the question as read. */
export function describeQuery(
  query: KnowledgeQuery | undefined,
  kind: string,
  zone: string,
  count = 2,
): string {
  const one = count === 1;
  const noun = query?.tags.length
    ? query.tags.map((t) => (one ? t : plural(t))).join('/')
    : (NOUNS[kind]?.[one ? 0 : 1] ?? 'results');
  if (!query) return noun;
  const parts = [
    query.levels.length ? `${query.levels.join('/')} ${noun}` : noun,
    query.audience.length ? `for ${query.audience.join(' or ')}` : undefined,
    query.cities.length ? `in ${query.cities.join(' or ')}` : undefined,
  ];
  if (query.dates) {
    const last = new Date(query.dates.to.getTime() - 1).toISOString();
    const from = DateTime.fromJSDate(query.dates.from, { zone }).toFormat('ccc d LLL');
    const to = DateTime.fromISO(last, { zone }).toFormat('ccc d LLL');
    parts.push(from === to ? `on ${from}` : `from ${from} to ${to}`);
  }
  if (query.maxPrice !== undefined)
    parts.push(query.maxPrice === 0 ? 'that are free' : `up to ${query.maxPrice}`);
  if (query.words.length > 0) parts.push(`matching "${query.words.join(' ')}"`);
  return parts.filter(Boolean).join(' ');
}

/** The collection whose reading describes the answer: the one that answered, else the first searched. */
function describedCollection(retrieval: Retrieval) {
  return (
    retrieval.results[0]?.collection ??
    retrieval.collections.find((c) => c.kind === 'events') ??
    retrieval.collections[0]
  );
}

/** The builtin engine's answer from retrieved documents: a numbered, cited list, or a plain "nothing found". */
export function knowledgeAnswer(retrieval: Retrieval): string {
  const first = describedCollection(retrieval);
  const what = describeQuery(
    first ? retrieval.queries.get(first.name) : undefined,
    first?.kind ?? 'results',
    first?.timeZone ?? 'UTC',
    retrieval.results.length,
  );
  if (retrieval.results.length === 0)
    return `I couldn't find any ${what}. Try another date, place or wording, or ask for fewer conditions ("anywhere", "any date").`;
  const lines = retrieval.results.map((found, i) => `${i + 1}. ${knowledgeLine(found)}`);
  const more = retrieval.results.length > 1 ? 'Ask me about any of them ("the second one").' : '';
  return `Here ${retrieval.results.length === 1 ? 'is 1' : `are ${retrieval.results.length}`} ${what}:\n${lines.join('\n')}\n${more}`.trim();
}

/** The aspects a question about one item asks for (price, when, where, age). */
export function aspectsOf(text: string): ItemAspect[] {
  const normalized = normalize(text);
  return (Object.keys(ITEM_ASPECTS) as ItemAspect[]).filter((aspect) =>
    ITEM_ASPECTS[aspect].some((w) => hasPhrase(normalized, w)),
  );
}

/** Sentences of a text, for quoting the ones a question is about. */
export function sentencesOf(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The sentences of a text that share content words with the question, best first. */
export function relevantSentences(text: string, question: string, limit = 2): string[] {
  const asked = new Set(tokenize(question));
  const aged = aspectsOf(question).includes('age');
  return sentencesOf(text)
    .map((sentence, index) => {
      let score = tokenize(sentence).filter((t) => asked.has(t)).length;
      if (aged && /\b(\d+\s*(-|–|to)\s*\d+|\d+\+|ages?|years?|anos|jahre|ans)\b/i.test(sentence))
        score += 2;
      return { sentence, index, score };
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, limit)
    .map((s) => s.sentence);
}

/** One item answered from its own fields: the aspect asked for first, then its card and description. */
export function itemAnswer(
  found: RetrievedDocument,
  question: string,
  aspects: ItemAspect[],
): string {
  const fields = found.doc.fields as Partial<EventFields & CourseFields>;
  const description = fields.description ?? '';
  const facts: string[] = [];
  for (const aspect of aspects) {
    if (aspect === 'price') {
      const price = priceText(fields.price, fields.currency);
      facts.push(price ? `Price: ${price}.` : 'No price is listed for it.');
    }
    if (aspect === 'when' && fields.startsAt)
      facts.push(
        `It starts ${eventTime(fields as EventFields, found.collection.timeZone)} (local time).`,
      );
    if (aspect === 'where') {
      const place = [fields.venue, fields.city].filter(Boolean).join(', ');
      facts.push(place ? `It takes place at ${place}.` : 'No venue is listed for it.');
    }
  }
  const quoted = relevantSentences(description, question);
  const lead = [...facts, ...quoted];
  const parts = [`**${titleOf(found.doc)}**${lead.length > 0 ? `: ${lead.join(' ')}` : ''}`];
  parts.push(knowledgeLine(found));
  const rest = sentencesOf(description).filter((s) => !quoted.includes(s));
  if (lead.length === 0 && rest.length > 0) parts.push(rest.join(' '));
  const tags = tagsOf(found.doc);
  if (lead.length === 0 && tags.length > 0) parts.push(`Tagged: ${tags.join(', ')}.`);
  return parts.join('\n\n');
}

/** A stemmed word set, to compare a question with passages. */
export function stems(text: string): Set<string> {
  return new Set(words(text).map(stem));
}

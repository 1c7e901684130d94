import { DateTime } from 'luxon';
import { metadataOf, tagsOf, titleOf, urlOf } from '../knowledge/documents';
import type { CollectionKind, CourseFields, EventFields } from '../knowledge/kinds';
import { hasPhrase, normalize } from '../language/normalize';
import { AUDIENCES, ITEM_ASPECTS } from '../language/lexicon';
import { wholeExcerpt } from '../language/values';
import { audiencesOf, type KnowledgeQuery } from '../retrieval/knowledge-query';
import { readAudience } from '../language/audience';
import type { Retrieval, RetrievedDocument } from '../retrieval/knowledge-retriever';
import { tokenize } from '../retrieval/tokenize';
import type { KnowledgeCollection } from '../store/knowledge/port';
import type { ShownItem } from '../store/sessions/port';
import { answeringLines, documentText } from './fact-answer';
import { blocksOf } from './passages';
import type { AskedFor, CollectionOverview, ContextItem, ItemAspect } from './types';

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
  return price === 0 ? 'free' : `${price} ${currency ?? ''}`.trim();
}

/** An event's facts after its title: when, where, price. */
function eventFacts(found: RetrievedDocument): string {
  const e = found.doc.fields as unknown as EventFields;
  const place = [e.venue, e.city].filter(Boolean).join(', ');
  return [eventTime(e, found.collection.timeZone), place, priceText(e.price, e.currency)]
    .filter(Boolean)
    .join(' · ');
}

/** A course's facts after its title: level, price, modules. */
function courseFacts(found: RetrievedDocument): string {
  const c = found.doc.fields as unknown as CourseFields;
  const modules = c.modules.map((m) => m.title).join(', ');
  return [
    c.level,
    priceText(c.price, c.currency),
    c.modules.length > 0
      ? `${c.modules.length} module${c.modules.length === 1 ? '' : 's'}: ${modules}`
      : undefined,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** The opening of an article or document, without its title, tags or metadata lines. */
function opening(found: RetrievedDocument, max = 280): string {
  const blocks = blocksOf(documentText(found)).filter((b) => !b.heading);
  const title = normalize(titleOf(found.doc));
  const text = blocks
    .map((b) => b.text)
    .filter((t) => normalize(t) !== title)
    .join(' ');
  return wholeExcerpt(text || found.passage, max);
}

/** One line of a list: the linked title once, then its facts (whole values, never cut inside one). */
export function knowledgeLine(found: RetrievedDocument): string {
  if (found.doc.kind === 'events') return `${citation(found)} - ${eventFacts(found)}`;
  if (found.doc.kind === 'courses') {
    const facts = courseFacts(found);
    return facts ? `${citation(found)} - ${facts}` : citation(found);
  }
  const text = opening(found);
  return text ? `${citation(found)}: ${text}` : citation(found);
}

/** "Einlass: 19:30": the document's metadata (an import's own columns) whose name or value the terms name. */
function namedMetadata(found: RetrievedDocument, terms: readonly string[]): string[] {
  const asked = new Set(terms);
  return metadataOf(found.doc)
    .filter(([name, value]) => tokenize(`${name} ${value}`).some((t) => asked.has(t)))
    .map(([name, value]) => `${name}: ${value}`);
}

/** A result's line with the metadata the question named, when the line does not show it already. */
function listLine(found: RetrievedDocument, query: KnowledgeQuery | undefined): string {
  const line = knowledgeLine(found);
  const named = namedMetadata(found, query?.terms ?? []).filter((m) => !line.includes(m));
  return named.length > 0 ? `${line} · ${named.join(' · ')}` : line;
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

const KIND_NOUNS: Record<CollectionKind, [string, string]> = {
  events: ['event', 'events'],
  courses: ['course', 'courses'],
  articles: ['article', 'articles'],
  documents: ['document', 'documents'],
};
/** Words of a collection's name that say nothing of what it holds. */
const NAME_FILLER = new Set([
  'demo',
  'test',
  'my',
  'our',
  'the',
  'all',
  'data',
  'list',
  'new',
  'v1',
]);

/** A plural noun as one ("workshops" -> "workshop"); words that are not English plurals stay. */
function singular(word: string): string {
  if (/ies$/i.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ch|sh|ss|x)es$/i.test(word)) return word.slice(0, -2);
  if (/[^su]s$/i.test(word) && word.length > 3) return word.slice(0, -1);
  return word;
}

/**
 * What the organization calls the records of a collection: its name's words ("workshops",
 * "termine", "clases abiertas"), else its kind's word ("events").
 */
export function nounOf(collection: KnowledgeCollection, count = 2): string {
  const words = collection.name
    .toLowerCase()
    .split(/[^\p{L}]+/u)
    .filter((w) => w.length >= 3 && !NAME_FILLER.has(w));
  if (words.length === 0) return KIND_NOUNS[collection.kind][count === 1 ? 0 : 1];
  return (count === 1 ? words.map(singular) : words).join(' ');
}

/** A tag as a plural noun ("concert" -> "concerts"); tags are the organization's words, often singular. */
function plural(word: string): string {
  if (/s$/i.test(word)) return word;
  if (/[^aeiou]y$/i.test(word)) return `${word.slice(0, -1)}ies`;
  return /(ch|sh|x)$/i.test(word) ? `${word}es` : `${word}s`;
}

const AUDIENCE_WORDS = new Set(Object.values(AUDIENCES).flat().map(normalize));
const isAudienceWord = (tag: string) => AUDIENCE_WORDS.has(normalize(tag));

/** Words of the user's quoted back at most, so a long message is never echoed. */
const QUOTED_WORDS = 8;

/** The user's words as a short quote ("park venue ok bringing stroller"), cut after a few words. */
export function quotedWords(words: string[]): string {
  const shown = words.slice(0, QUOTED_WORDS).join(' ');
  return words.length > QUOTED_WORDS ? `${shown} …` : shown;
}

/** "concerts for kids in Madrid from Sat 21 Nov to Sun 22 Nov up to 20": the question as read. */
export function describeQuery(
  query: KnowledgeQuery | undefined,
  collection: KnowledgeCollection | undefined,
  count = 2,
): string {
  const one = count === 1;
  const noun = query?.tags.length
    ? query.tags.map((t) => (one ? t : plural(t))).join('/')
    : collection
      ? nounOf(collection, count)
      : 'results';
  if (!query) return noun;
  const zone = collection?.timeZone ?? 'UTC';
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
    parts.push(
      query.maxPrice === 0 ? `that ${one ? 'is' : 'are'} free` : `up to ${query.maxPrice}`,
    );
  if (query.words.length > 0) parts.push(`matching "${quotedWords(query.words)}"`);
  return parts.filter(Boolean).join(' ');
}

const isListed = (c: KnowledgeCollection) => c.kind === 'events' || c.kind === 'courses';

/** The collection whose reading describes the answer: the one that answered, else the first listed kind searched. */
function describedCollection(retrieval: Retrieval) {
  return (
    retrieval.results[0]?.collection ??
    retrieval.collections.find(isListed) ??
    retrieval.collections[0]
  );
}

/** The builtin engine's answer from retrieved documents: a numbered, cited list, or a plain "nothing found". */
export function knowledgeAnswer(retrieval: Retrieval): string {
  const first = describedCollection(retrieval);
  const query = first ? retrieval.queries.get(first.name) : undefined;
  if (retrieval.results.length === 0) {
    if (first && !isListed(first))
      return `I couldn't find anything${query?.words.length ? ` about "${quotedWords(query.words)}"` : ''} in our information. Try other words, or ask me about something else.`;
    return `I couldn't find any ${describeQuery(query, first, 0)}. Try another date, place or wording, or ask for fewer conditions ("anywhere", "any date").`;
  }
  const what = describeQuery(query, first, retrieval.results.length);
  const lines = retrieval.results.map(
    (found, i) => `${i + 1}. ${listLine(found, retrieval.queries.get(found.collection.name))}`,
  );
  const more = retrieval.results.length > 1 ? 'Ask me about any of them ("the second one").' : '';
  return `Here ${retrieval.results.length === 1 ? 'is 1' : `are ${retrieval.results.length}`} ${what}:\n${lines.join('\n')}\n${more}`.trim();
}

/** The aspects a question asks for (price, when, where, age, opening hours, contact). */
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
export function relevantSentences(
  text: string,
  question: string[],
  aged: boolean,
  limit = 2,
): string[] {
  const asked = new Set(question.flatMap((w) => tokenize(w)));
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

/** The facts of an event or course: each with whether a question about it asks for it. */
function itemFacts(found: RetrievedDocument): Array<{ aspect: ItemAspect; text: string }> {
  const fields = found.doc.fields as Partial<EventFields & CourseFields>;
  const place = [fields.venue, fields.city].filter(Boolean).join(', ');
  const price = priceText(fields.price, fields.currency);
  return [
    ...(fields.startsAt
      ? [
          {
            aspect: 'when' as const,
            text: eventTime(fields as EventFields, found.collection.timeZone),
          },
        ]
      : []),
    ...(place ? [{ aspect: 'where' as const, text: place }] : []),
    ...(fields.level ? [{ aspect: 'age' as const, text: fields.level }] : []),
    ...(price ? [{ aspect: 'price' as const, text: price }] : []),
  ];
}

/** How an asked fact is said, and what is said when the item lacks it. */
const ASKED: Partial<Record<ItemAspect, { has: (v: string) => string; lacks: string }>> = {
  price: { has: (v) => `Price: ${v}.`, lacks: 'No price is listed for it.' },
  when: { has: (v) => `It starts ${v} (local time).`, lacks: 'No date is listed for it.' },
  where: { has: (v) => `It takes place at ${v}.`, lacks: 'No venue is listed for it.' },
};

/**
 * One item answered from its own fields: the linked title once, the asked facts first, then its
 * other facts and (when nothing in particular was asked) its description; never its tags.
 */
export function itemAnswer(found: RetrievedDocument, asked: AskedFor): string {
  if (found.doc.kind !== 'events' && found.doc.kind !== 'courses') return factAnswer(found, asked);
  const fields = found.doc.fields as Partial<EventFields & CourseFields>;
  const description = fields.description ?? '';
  const facts = itemFacts(found);
  const lead: string[] = [];
  for (const aspect of asked.aspects) {
    const said = ASKED[aspect];
    if (!said) continue;
    const fact = facts.find((f) => f.aspect === aspect);
    lead.push(fact ? said.has(fact.text) : said.lacks);
  }
  // "Is it for kids?": yes or no from who the item is for, with the sentences that say so.
  if (asked.audience?.length) {
    const groups = audiencesOf(found.doc);
    const yes = asked.audience.some((g) => groups.includes(g));
    lead.unshift(
      yes
        ? `Yes, it is for ${asked.audience.join(' or ')}.`
        : `It is not listed as for ${asked.audience.join(' or ')}.`,
    );
  }
  // The item's own columns the question names ("Wann ist Einlass?": "Einlass: 18:45 Uhr.").
  const named = namedMetadata(
    found,
    asked.words.flatMap((w) => tokenize(w)),
  );
  lead.push(...named.map((m) => `${m}.`));
  // Ages, or what the fields do not hold, are in the description: its sentences about them.
  const fromText = asked.aspects.includes('age') || (lead.length === 0 && asked.aspects.length > 0);
  const quoted = fromText
    ? [
        ...new Set([
          ...sentencesOf(description).filter((s) => readAudience(s).phrases.length > 0),
          ...relevantSentences(description, asked.words, asked.aspects.includes('age')),
        ]),
      ].slice(0, 3)
    : [];
  const others = facts
    .filter((f) => !asked.aspects.includes(f.aspect) || !ASKED[f.aspect])
    .map((f) => f.text)
    .join(' · ');
  const parts = [
    `${citation(found)}: ${[...lead, ...quoted, others && (lead.length + quoted.length > 0 ? `(${others})` : `${others}.`)].filter(Boolean).join(' ')}`,
  ];
  // Nothing in particular, or who it is for: the description says it.
  const whole = asked.aspects.length === 0 || asked.aspects.includes('who');
  if (whole && description) parts.push(wholeExcerpt(description, 600));
  const metadata = metadataOf(found.doc)
    .map(([name, value]) => `${name}: ${value}`)
    .filter((m) => !named.includes(m));
  if (whole && metadata.length > 0) parts.push(metadata.join(' · '));
  return parts.join('\n\n');
}

/**
 * An answer from an article or document: the lines that say what was asked first, in whole values
 * ("Full service: 89 EUR (...)"), then where they come from; its opening when nothing in particular
 * was asked. Other documents that match are named after it.
 */
export function factAnswer(
  found: RetrievedDocument,
  asked: AskedFor,
  also: RetrievedDocument[] = [],
): string {
  const lines = answeringLines(found, asked);
  const title = titleOf(found.doc);
  const parts: string[] = [];
  if (lines.length === 0) parts.push(`${citation(found)}: ${opening(found, 600)}`);
  else {
    const first = lines[0] as string;
    const words = new Set(asked.words.flatMap((w) => tokenize(w)));
    const says = (text: string) => tokenize(text).some((t) => words.has(t));
    if (normalize(first).startsWith(normalize(title)) && /^[^:]*:/.test(first))
      // "Full service: 89 EUR" from a document titled "Full service": its title once, as the link.
      parts.push(`${citation(found)}${first.slice(first.indexOf(':'))}`, ...lines.slice(1));
    else if (words.size > 0 && !lines.some(says) && says(title))
      // The title names what was asked, the line gives the value ("Vollservice": "Preis: 89 EUR").
      parts.push(`${citation(found)}: ${lines.join('\n')}`);
    else parts.push(lines.join('\n'), `Source: ${citation(found)}`);
  }
  if (also.length > 0) parts.push(`See also: ${also.map(citation).join(', ')}.`);
  return parts.join('\n\n');
}

/** What the asked aspects are called in a reply ("your opening hours"). */
const ASPECT_NAMES: Record<ItemAspect, string> = {
  price: 'a price',
  when: 'a date or time',
  where: 'an address',
  age: 'an age',
  who: 'who it is for',
  hours: 'opening hours',
  contact: 'contact details',
};

/** Nothing of the organization's says what was asked. */
export function notFoundAnswer(asked: AskedFor): string {
  const what = asked.words.length
    ? `"${quotedWords(asked.words)}"`
    : asked.aspects.map((a) => ASPECT_NAMES[a]).join(' or ') || 'that';
  return `I couldn't find ${what} in our information. Try other words, or ask me about something else.`;
}

/** A list of a few items joined the way a sentence names them ("a, b and c"). */
function listed(items: string[]): string {
  return items.length <= 1
    ? (items[0] ?? '')
    : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** The values of documents most often given, most frequent first. */
function mostFrequent(values: string[], count: number): string[] {
  const seen = new Map<string, { value: string; n: number }>();
  for (const value of values) {
    const key = value.toLowerCase();
    const entry = seen.get(key) ?? { value, n: 0 };
    entry.n++;
    seen.set(key, entry);
  }
  return [...seen.values()]
    .sort((a, b) => b.n - a.n)
    .slice(0, count)
    .map((e) => e.value);
}

/** What a listed collection holds, in its own words: "workshops in Leipzig", "events (concerts, theatre) in Madrid". */
function listedOffer(collection: KnowledgeCollection, samples: RetrievedDocument[]) {
  const noun = nounOf(collection);
  const fields = samples.map((s) => s.doc.fields as Partial<EventFields>);
  const cities = mostFrequent(
    fields.flatMap((f) => (f.city ? [f.city] : [])),
    3,
  );
  const kinds = mostFrequent(
    samples.flatMap((s) => tagsOf(s.doc)).filter((t) => !isAudienceWord(t)),
    3,
  )
    .map(plural)
    .filter((t) => normalize(t) !== normalize(noun));
  const place = cities.length > 0 ? ` in ${listed(cities)}` : '';
  return {
    offer: `our ${noun}${kinds.length > 0 ? ` (${listed(kinds)})` : ''}${place}`,
    example: `${kinds[0] ?? noun}${cities[0] ? ` in ${cities[0]}` : ''}${collection.kind === 'events' ? ' this weekend' : ''}`,
  };
}

/**
 * A greeting from the organization's own data: what its collections hold, in its own words (the
 * collection's name, its tags and cities) and the titles of its articles, never a made-up example.
 */
export function greetingAnswer(overview: CollectionOverview[]): string {
  const offers: string[] = [];
  const examples: string[] = [];
  const topics: string[] = [];
  for (const { collection, samples } of overview) {
    if (samples.length === 0) continue;
    if (collection.kind === 'events' || collection.kind === 'courses') {
      const { offer, example } = listedOffer(collection, samples);
      offers.push(offer);
      examples.push(example);
    } else topics.push(...samples.map((d) => titleOf(d.doc)));
  }
  const parts = [
    offers.length > 0
      ? `I can find ${listed(offers)} by date, price or audience (for example "${examples[0]}")`
      : '',
    topics.length > 0
      ? `${offers.length > 0 ? 'and answer' : 'I can answer'} questions from our information, such as ${listed(topics.slice(0, 4).map((t) => `"${t}"`))}`
      : '',
  ].filter(Boolean);
  if (parts.length === 0) return "Hello! I don't have any information to share yet.";
  return `Hello! ${parts.join(' ')}. What would you like to know?`;
}

import type { KnowledgeDocument } from '../knowledge/documents';
import { tagsOf } from '../knowledge/documents';
import type { CollectionKind, CourseFields, EventFields } from '../knowledge/kinds';
import { resolveDateRange, type DateRange } from './date-phrases';
import { stem, tokenize, words } from './tokenize';

/** What a question asks of a knowledge base beyond its words: time, place, price, level, tags. */
export interface KnowledgeQuery {
  text: string;
  dates?: DateRange;
  cities: string[];
  /** Highest price asked for ("under 30", "free" = 0). */
  maxPrice?: number;
  levels: string[];
  tags: string[];
  /** Index terms left once the filters' words are taken out; they must match when present. */
  terms: string[];
}

/** Words people use for a tag that the tag itself does not contain. */
const TAG_SYNONYMS: Record<string, string[]> = {
  concert: ['gig', 'gigs', 'concerts', 'music', 'live music'],
  theatre: ['theater', 'play', 'plays'],
  comedy: ['stand-up', 'standup', 'comedian'],
  festival: ['festivals', 'open air'],
  exhibition: ['exhibitions', 'museum', 'gallery'],
  sports: ['sport', 'match', 'football', 'game'],
  conference: ['summit', 'meetup'],
};
const LEVELS = ['beginner', 'intermediate', 'advanced'];
const LEVEL_WORDS: Record<string, string[]> = {
  beginner: ['beginner', 'beginners', 'novice', 'introductory', 'intro'],
  intermediate: ['intermediate'],
  advanced: ['advanced', 'expert'],
};
/** Words that ask for a kind of record without narrowing it. */
const GENERIC = new Set(
  'event events happening going on what whats s any anything show shows me find list upcoming coming up course courses class classes take attend recommend available offer there some new next this week weekend month day tonight today tomorrow in at near around city price cheap under below less than max up euro euros eur usd dollar dollars pound pounds gbp'
    .split(' ')
    .map(stem),
);
const PRICE =
  /\b(?:under|below|less than|cheaper than|up to|max(?:imum)?|at most|no more than)\s*(?:€|\$|£|eur|usd|gbp)?\s*(\d+(?:[.,]\d+)?)/i;
const FREE = /\bfree\b/i;

function phraseIn(joined: string, phrase: string): boolean {
  const normalized = words(phrase).join(' ');
  return normalized !== '' && joined.includes(` ${normalized} `);
}

/** Values of one field over documents, deduplicated. */
function valuesOf(
  documents: KnowledgeDocument[],
  pick: (d: KnowledgeDocument) => string[],
): string[] {
  return [...new Set(documents.flatMap(pick).filter(Boolean))];
}

/** Reads a question against the documents it may filter (their cities and tags are the vocabulary). */
export function parseKnowledgeQuery(
  text: string,
  documents: KnowledgeDocument[],
  now: Date,
  timeZone: string,
): KnowledgeQuery {
  const tokens = words(text);
  const joined = ` ${tokens.join(' ')} `;
  const stems = new Set(tokens.map(stem));
  const dates = resolveDateRange(text, now, timeZone);
  const cities = valuesOf(documents, (d) => [(d.fields as Partial<EventFields>).city ?? '']).filter(
    (city) => phraseIn(joined, city),
  );
  const tags = valuesOf(documents, tagsOf).filter((tag) =>
    [tag, ...(TAG_SYNONYMS[tag.toLowerCase()] ?? [])].some((w) =>
      words(w).length > 1 ? phraseIn(joined, w) : stems.has(stem(words(w)[0] ?? '')),
    ),
  );
  const levels = LEVELS.filter((level) => LEVEL_WORDS[level]?.some((w) => stems.has(stem(w))));
  const price = PRICE.exec(text);
  const maxPrice = price ? Number(price[1]?.replace(',', '.')) : FREE.test(text) ? 0 : undefined;

  const used = new Set(
    [
      ...cities,
      ...tags,
      ...tags.flatMap((t) => TAG_SYNONYMS[t.toLowerCase()] ?? []),
      ...levels.flatMap((l) => LEVEL_WORDS[l] ?? []),
    ].flatMap((w) => tokenize(w)),
  );
  const rest = text
    .replace(PRICE, ' ')
    .replace(FREE, ' ')
    .toLowerCase()
    .replace(dates?.phrase ?? '\u0000', ' ');
  const terms = [...new Set(tokenize(rest))].filter(
    (t) => !used.has(t) && !GENERIC.has(t) && !/^\d+$/.test(t),
  );
  return { text, dates, cities, maxPrice, levels, tags, terms };
}

/** Whether the question filters documents of this kind (a course level says nothing about events). */
export function hasStructuredFilters(q: KnowledgeQuery, kind: CollectionKind): boolean {
  const common = q.tags.length > 0 || q.maxPrice !== undefined;
  if (kind === 'events') return common || q.dates !== undefined || q.cities.length > 0;
  if (kind === 'courses') return common || q.levels.length > 0;
  return q.tags.length > 0;
}

/** Words that ask for the records of a kind as such ("what's on?", "which courses do you have?"). */
const KIND_WORDS: Partial<Record<CollectionKind, RegExp>> = {
  events: /\b(events?|what'?s on|happening|going on|tickets?|gigs?|shows?|concerts?)\b/i,
  courses: /\b(courses?|class(es)?|trainings?|lessons?|curricul(um|a))\b/i,
};

export function namesKind(text: string, kind: CollectionKind): boolean {
  return KIND_WORDS[kind]?.test(text) ?? false;
}

const lower = (values: string[]) => values.map((v) => v.toLowerCase());

/** Whether a document meets every filter that applies to its kind (a filter on a field it lacks excludes it). */
export function matchesQuery(doc: KnowledgeDocument, q: KnowledgeQuery): boolean {
  const fields = doc.fields as Partial<EventFields & CourseFields>;
  if (q.tags.length > 0 && !lower(tagsOf(doc)).some((t) => lower(q.tags).includes(t))) return false;
  if (q.maxPrice !== undefined && !(typeof fields.price === 'number' && fields.price <= q.maxPrice))
    return false;
  if (doc.kind === 'events') {
    if (q.cities.length > 0 && !lower(q.cities).includes((fields.city ?? '').toLowerCase()))
      return false;
    if (q.dates && !overlaps(fields as EventFields, q.dates)) return false;
  }
  if (
    doc.kind === 'courses' &&
    q.levels.length > 0 &&
    !q.levels.some((l) => (fields.level ?? '').toLowerCase().includes(l))
  )
    return false;
  return true;
}

function overlaps(event: EventFields, range: DateRange): boolean {
  const start = Date.parse(event.startsAt);
  const end = event.endsAt ? Date.parse(event.endsAt) : start;
  return start < range.to.getTime() && end >= range.from.getTime();
}

/** Events still to come (or running) at now; other kinds are timeless. */
export function isCurrent(doc: KnowledgeDocument, now: Date): boolean {
  if (doc.kind !== 'events') return true;
  const event = doc.fields as unknown as EventFields;
  return Date.parse(event.endsAt ?? event.startsAt) >= now.getTime();
}

import type { KnowledgeDocument } from '../knowledge/documents';
import { tagsOf, titleOf } from '../knowledge/documents';
import type { CollectionKind, CourseFields, EventFields } from '../knowledge/kinds';
import { readAudience } from '../language/audience';
import {
  AUDIENCES,
  CATEGORY_GROUPS,
  CITY_NAMES,
  FREE_WORDS,
  LEVELS,
  PRICE_CAPS,
} from '../language/lexicon';
import { hasPhrase, normalize, withoutPhrases } from '../language/normalize';
import { resolveDateRange, type DateRange } from './date-phrases';
import { stem, tokenize, words } from './tokenize';

/** What a question asks of a knowledge base beyond its words: time, place, price, audience, level, tags. */
export interface KnowledgeQuery {
  text: string;
  dates?: DateRange;
  cities: string[];
  /** Highest price asked for ("under 30", "free" = 0). */
  maxPrice?: number;
  /** Audience groups asked for (kids, adults). */
  audience: string[];
  levels: string[];
  tags: string[];
  /** Index terms left once the filters' words are taken out; they must match when present. */
  terms: string[];
  /** The same words as the user wrote them (for replies: never the stemmed terms). */
  words: string[];
}

/** Constraints a conversation carries from one question to the next (what a follow-up inherits). */
export type QueryConstraints = Partial<
  Pick<KnowledgeQuery, 'dates' | 'cities' | 'maxPrice' | 'audience' | 'levels' | 'tags'>
>;

/** Words that ask for a kind of record without narrowing it, in the four languages. */
const GENERIC = new Set(
  (
    'event events happening going on what whats s any anything show shows me find list upcoming coming up course courses class classes ' +
    'take attend recommend available offer there some new next this week weekend month day tonight today tomorrow in at near around ' +
    'city price cheap under below less than max up euro euros eur usd dollar dollars pound pounds gbp for with ' +
    'que hay algo en de para el la los las un una del con por esta este semana fin mes hoy manana euros ' +
    'was gibt es im am in der die das fur mit diese dieses woche monat heute morgen ' +
    'quoi il y a des les pour avec ce cette semaine mois aujourd hui demain ' +
    'when where who why how which can could do does did is are am be get tell about more ' +
    'cual cuales donde cuando cuanto quien como puedo wann wo welche welcher wer wie kann ' +
    'quel quels quelle quelles quand ou qui combien comment puis est ' +
    // Pronouns, particles and politeness of the other three languages (the stopwords are English).
    'ich du wir ihr mein meine mir mich uns noch nur mal gern gerne bitte danke bei ein eine einen ' +
    'yo tu mi mis me nos nosotros su sus favor gracias tambien ' +
    'je tu mon ma mes nous vous votre vos moi plait merci aussi seulement une ' +
    // Verbs of "what do you have", and the kinds of record, in the other three languages.
    'teneis tienen tienes tiene ofreceis ofrecen ofrece habt haben hast hat bietet bieten ' +
    'avez proposez offrez propose curso cursos kurs kurse cours formation formations evento ' +
    'eventos veranstaltung veranstaltungen evenement evenements ' +
    // "What else?", and French elisions ("qu'est-ce qu'il y a", "c'est").
    'else other others sonst andere anderes otro otra otros otras autre autres qu c l d j n ' +
    'nr nummer numero opcion option'
  )
    .split(' ')
    .map(stem),
);

const AUDIENCE_WORDS = new Set(Object.values(AUDIENCES).flat().map(normalize));

/** "20", "20.50", "20,5" after a cap word, with an optional currency sign or word between. */
function priceCap(normalizedRaw: string): { value: number; phrase: string } | undefined {
  for (const cap of PRICE_CAPS) {
    const pattern = new RegExp(
      ` ${normalize(cap).trim()} (?:eur |euro |euros |usd |gbp |dollars? |pounds? )?(\\d+(?:[.,]\\d+)?)`,
    );
    const match = pattern.exec(normalizedRaw);
    if (match?.[1]) return { value: Number(match[1].replace(',', '.')), phrase: match[0] };
  }
  return undefined;
}

/** Normalized text that keeps decimal separators between digits ("20.50" stays one number). */
function normalizeKeepingNumbers(text: string): string {
  return normalize(text.replace(/(\d)[.,](\d)/g, '$1dec$2')).replace(/(\d)dec(\d)/g, '$1.$2');
}

/** The other names of a city ("München" -> "Munich", "Múnich", "Munique"), none when unknown. */
function cityNames(city: string): readonly string[] {
  const key = normalize(city);
  return CITY_NAMES.find((names) => names.some((n) => normalize(n) === key)) ?? [];
}

/** The group of words a tag belongs to (its own word when none). */
function groupOf(tag: string): readonly string[] {
  const key = stem(words(tag).join(' '));
  return CATEGORY_GROUPS.find((g) => g.some((w) => stem(words(w).join(' ')) === key)) ?? [tag];
}

function mentions(normalized: string, stems: Set<string>, phrase: string): boolean {
  const ws = words(phrase);
  if (ws.length === 0) return false;
  return ws.length > 1 ? hasPhrase(normalized, phrase) : stems.has(stem(ws[0] as string));
}

function valuesOf(
  documents: KnowledgeDocument[],
  pick: (d: KnowledgeDocument) => string[],
): string[] {
  return [...new Set(documents.flatMap(pick).filter(Boolean))];
}

/**
 * Reads a question against the documents it may filter (their cities and tags are the
 * vocabulary). A weekend or weekday named without "this" or "next" is read in the period `around`
 * (the dates a follow-up continues), when given.
 */
export function parseKnowledgeQuery(
  text: string,
  documents: KnowledgeDocument[],
  now: Date,
  timeZone: string,
  kind?: CollectionKind,
  around?: Pick<DateRange, 'from' | 'to'>,
): KnowledgeQuery {
  const normalized = normalize(text);
  const dates = resolveDateRange(text, now, timeZone, around);
  if (kind === 'articles' || kind === 'documents') return textQuery(text, normalized, dates);
  const tokens = words(text);
  const stems = new Set(tokens.map(stem));
  const cityWords = new Map<string, string>();
  const cities = valuesOf(documents, (d) => [(d.fields as Partial<EventFields>).city ?? '']).filter(
    (city) => {
      // "Munich" finds München: a city by any of its names in the four languages.
      const said = [city, ...cityNames(city)].find((name) => hasPhrase(normalized, name));
      if (said) cityWords.set(city, said);
      return said !== undefined;
    },
  );
  const tagWords = new Map<string, readonly string[]>();
  // A tag that names an audience ("kids") is the audience filter's, which reads descriptions too.
  const tags = valuesOf(documents, tagsOf).filter((tag) => {
    if (AUDIENCE_WORDS.has(normalize(tag))) return false;
    const group = groupOf(tag);
    const said = [tag, ...group].filter((w) => mentions(normalized, stems, w));
    if (said.length > 0) tagWords.set(tag, said);
    return said.length > 0;
  });
  const asked = readAudience(text);
  const audience = asked.groups;
  const levels = Object.entries(LEVELS)
    .filter(([, ws]) => ws.some((w) => stems.has(stem(w))))
    .map(([level]) => level);
  const numbers = normalizeKeepingNumbers(text);
  const cap = priceCap(numbers);
  const free = FREE_WORDS.find((w) => hasPhrase(normalized, w));
  const maxPrice = cap ? cap.value : free ? 0 : undefined;

  const used = [
    ...cityWords.values(),
    ...[...tagWords.values()].flat(),
    ...asked.phrases,
    ...levels.flatMap((l) => LEVELS[l] ?? []),
    ...(dates ? [dates.phrase] : []),
    ...(free ? [free] : []),
  ];
  const rest = withoutPhrases(cap ? numbers.replace(cap.phrase, ' ') : normalized, used);
  const kept = rest
    .trim()
    .split(' ')
    .filter((w) => w && !/^\d+([.]\d+)?$/.test(w))
    .filter((w) => tokenize(w).length > 0 && !GENERIC.has(stem(w)));
  const terms = [...new Set(kept.flatMap((w) => tokenize(w)))];
  return {
    text,
    dates,
    cities,
    maxPrice,
    audience,
    levels,
    tags,
    terms,
    words: [...new Set(kept)],
  };
}

/**
 * Help articles and documents are searched by their words only (their tags are words too); a
 * date is not a word they must contain ("open on Saturday" finds "Sa 10:00–14:00").
 */
function textQuery(text: string, normalized: string, dates?: DateRange): KnowledgeQuery {
  const kept = withoutPhrases(normalized, dates ? [dates.phrase] : [])
    .trim()
    .split(' ')
    .filter((w) => w && tokenize(w).length > 0 && !GENERIC.has(stem(w)));
  return {
    text,
    cities: [],
    audience: [],
    levels: [],
    tags: [],
    terms: [...new Set(kept.flatMap((w) => tokenize(w)))],
    words: [...new Set(kept)],
  };
}

/** The question's own constraints over the inherited ones: each kind the question names replaces the old one. */
export function withInherited(query: KnowledgeQuery, inherited?: QueryConstraints): KnowledgeQuery {
  if (!inherited) return query;
  return {
    ...query,
    dates: query.dates ?? inherited.dates,
    cities: query.cities.length > 0 ? query.cities : (inherited.cities ?? []),
    maxPrice: query.maxPrice ?? inherited.maxPrice,
    audience: query.audience.length > 0 ? query.audience : (inherited.audience ?? []),
    levels: query.levels.length > 0 ? query.levels : (inherited.levels ?? []),
    tags: query.tags.length > 0 ? query.tags : (inherited.tags ?? []),
  };
}

/** Whether the question filters documents of this kind (a course level says nothing about events). */
export function hasStructuredFilters(q: KnowledgeQuery, kind: CollectionKind): boolean {
  const common = q.tags.length > 0 || q.maxPrice !== undefined || q.audience.length > 0;
  if (kind === 'events') return common || q.dates !== undefined || q.cities.length > 0;
  if (kind === 'courses') return common || q.levels.length > 0;
  return q.tags.length > 0;
}

/** Words that ask for the records of a kind as such ("what's on?", "which courses do you have?"). */
const KIND_WORDS: Partial<Record<CollectionKind, readonly string[]>> = {
  events: [
    'event',
    'events',
    'what s on',
    'whats on',
    'happening',
    'going on',
    'tickets',
    'ticket',
    'gigs',
    'shows',
    'show',
    'concerts',
    'eventos',
    'que hay',
    'planes',
    'veranstaltungen',
    'was ist los',
    'evenements',
    'sorties',
    'spectacles',
  ],
  courses: [
    'course',
    'courses',
    'class',
    'classes',
    'training',
    'trainings',
    'lessons',
    'curriculum',
    'cursos',
    'curso',
    'kurse',
    'kurs',
    'cours',
    'formation',
    'formations',
  ],
};

export function namesKind(text: string, kind: CollectionKind): boolean {
  const normalized = normalize(text);
  return (KIND_WORDS[kind] ?? []).some((w) => hasPhrase(normalized, w));
}

const lower = (values: string[]) => values.map((v) => v.toLowerCase());

/**
 * Whether a document is for one of the audiences: tagged with one of their words (or its level
 * says so), or described as such (see readAudience: negations and "adults only" count). Not its
 * title, nor the names of its venue and city in the description: names hold words ("Sagrada
 * Familia Choir" is not a family event).
 */
function forAudience(doc: KnowledgeDocument, audience: string[]): boolean {
  const groups = audiencesOf(doc);
  return audience.some((group) => groups.includes(group));
}

/** A document's audiences, read once per stored version (documents are kept per collection revision). */
const AUDIENCES_OF = new WeakMap<KnowledgeDocument, string[]>();

/** Who a document is for: audience groups of its tags and level, and of its description (names left out). */
export function audiencesOf(doc: KnowledgeDocument): string[] {
  const known = AUDIENCES_OF.get(doc);
  if (known) return known;
  const fields = doc.fields as Partial<EventFields & CourseFields>;
  const labels = normalize([tagsOf(doc).join(' '), fields.level ?? ''].join(' '));
  const labelled = Object.entries(AUDIENCES)
    .filter(([, words]) => words.some((w) => hasPhrase(labels, w)))
    .map(([group]) => group);
  const names = [titleOf(doc), fields.venue ?? '', fields.city ?? ''].filter((n) => n.trim());
  let description = fields.description ?? '';
  for (const name of names)
    description = description.replace(new RegExp(escapeRegExp(name), 'gi'), ' ');
  const groups = [...new Set([...labelled, ...readAudience(description).groups])];
  AUDIENCES_OF.set(doc, groups);
  return groups;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

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
  // The costliest filter last: it reads the description.
  return q.audience.length === 0 || forAudience(doc, q.audience);
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

import { events, type EventRecord } from '../data/catalog';
import { Bm25Index } from './bm25';
import { words, stem } from './tokenize';

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** Words people use for each category of the events database. */
const CATEGORY_WORDS: Record<string, string[]> = {
  concert: ['concert', 'gig', 'music', 'jazz', 'techno', 'pop', 'classical', 'band', 'dj'],
  theatre: ['theatre', 'theater', 'musical', 'opera'],
  festival: ['festival', 'open air'],
  conference: ['conference', 'summit', 'talk', 'workshop', 'tech', 'developer'],
  sports: ['sport', 'sports', 'football', 'match', 'game', 'soccer'],
  exhibition: ['exhibition', 'museum', 'gallery', 'art'],
  comedy: ['comedy', 'stand-up', 'standup', 'comedian'],
};

/** Structured reading of an events question: "concerts in Berlin", "what's on in June". */
export interface EventQuery {
  cities: string[];
  /** 1-12. */
  months: number[];
  categories: string[];
  text: string;
}

export function hasFilters(query: EventQuery): boolean {
  return query.cities.length + query.months.length + query.categories.length > 0;
}

export function parseEventQuery(
  text: string,
  catalog: readonly EventRecord[] = events,
): EventQuery {
  const tokens = words(text);
  const stems = new Set(tokens.map(stem));
  const joined = ` ${tokens.join(' ')} `;
  const cities = [...new Set(catalog.map((e) => e.city))].filter((city) =>
    joined.includes(` ${words(city).join(' ')} `),
  );
  const months = MONTHS.flatMap((name, i) => (namesMonth(tokens, joined, name) ? [i + 1] : []));
  const categories = Object.entries(CATEGORY_WORDS)
    .filter(([, synonyms]) =>
      synonyms.some((w) =>
        w.includes(' ') || w.includes('-')
          ? joined.includes(` ${words(w).join(' ')} `)
          : stems.has(stem(w)),
      ),
    )
    .map(([category]) => category);
  return { cities, months, categories, text };
}

/** "May" is also a verb, so it only counts as a month after "in"/"during" or before a year. */
function namesMonth(tokens: string[], joined: string, month: string): boolean {
  if (month === 'may') return /\b(in|during|of) may\b|\bmay 20\d\d\b/.test(joined);
  return tokens.includes(month) || tokens.includes(month.slice(0, 3));
}

/** Merges a follow-up ("and in June?") into the question it follows: new filters win per kind. */
export function mergeEventQueries(previous: EventQuery, followUp: EventQuery): EventQuery {
  return {
    cities: followUp.cities.length > 0 ? followUp.cities : previous.cities,
    months: followUp.months.length > 0 ? followUp.months : previous.months,
    categories: followUp.categories.length > 0 ? followUp.categories : previous.categories,
    text: `${previous.text} ${followUp.text}`,
  };
}

/** Local month of an ISO date with offset ("2027-06-12T19:30:00+02:00" -> 6). */
export function eventMonth(event: EventRecord): number {
  return Number(event.date.slice(5, 7));
}

export class EventSearch {
  private readonly index: Bm25Index<EventRecord>;

  constructor(private readonly catalog: readonly EventRecord[] = events) {
    this.index = new Bm25Index(
      catalog.map((e) => ({
        id: e.id,
        text: [e.name, e.category, e.city, e.venue, e.description].join('\n'),
        item: e,
      })),
    );
  }

  /** Filters when the question names cities, months or categories; free-text BM25 otherwise. Soonest first. */
  find(query: EventQuery, limit = 5): EventRecord[] {
    const found = hasFilters(query)
      ? this.catalog.filter((e) => matchesFilters(e, query))
      : this.index.search(query.text, limit).map((hit) => hit.item);
    return [...found].sort((a, b) => Date.parse(a.date) - Date.parse(b.date)).slice(0, limit);
  }

  cities(): string[] {
    return [...new Set(this.catalog.map((e) => e.city))];
  }
}

function matchesFilters(event: EventRecord, query: EventQuery): boolean {
  return (
    (query.cities.length === 0 || query.cities.includes(event.city)) &&
    (query.months.length === 0 || query.months.includes(eventMonth(event))) &&
    (query.categories.length === 0 || query.categories.includes(event.category))
  );
}

import { RESETS } from '../language/lexicon';
import { firstPhrase, normalize } from '../language/normalize';
import type { KnowledgeQuery, QueryConstraints } from '../retrieval/knowledge-query';
import type { Retrieval } from '../retrieval/knowledge-retriever';
import type { DialogueState, ShownItem, StoredConstraints } from '../store/sessions/port';
import type { Pointer } from './intents';

export function emptyDialogue(): DialogueState {
  return { constraints: {}, shown: [] };
}

export function toStored(q: KnowledgeQuery): StoredConstraints {
  return {
    ...(q.dates
      ? {
          dates: {
            from: q.dates.from.toISOString(),
            to: q.dates.to.toISOString(),
            phrase: q.dates.phrase,
          },
        }
      : {}),
    ...(q.cities.length ? { cities: q.cities } : {}),
    ...(q.maxPrice !== undefined ? { maxPrice: q.maxPrice } : {}),
    ...(q.audience.length ? { audience: q.audience } : {}),
    ...(q.levels.length ? { levels: q.levels } : {}),
    ...(q.tags.length ? { tags: q.tags } : {}),
  };
}

export function fromStored(s: StoredConstraints): QueryConstraints {
  return {
    ...(s.dates
      ? {
          dates: { from: new Date(s.dates.from), to: new Date(s.dates.to), phrase: s.dates.phrase },
        }
      : {}),
    cities: s.cities ?? [],
    maxPrice: s.maxPrice,
    audience: s.audience ?? [],
    levels: s.levels ?? [],
    tags: s.tags ?? [],
  };
}

/** The constraints after the user's "anywhere", "any date", "start over". */
export function afterResets(text: string, constraints: StoredConstraints): StoredConstraints {
  const normalized = normalize(text);
  if (firstPhrase(normalized, RESETS.all)) return {};
  const next = { ...constraints };
  if (firstPhrase(normalized, RESETS.cities)) delete next.cities;
  if (firstPhrase(normalized, RESETS.dates)) delete next.dates;
  if (firstPhrase(normalized, RESETS.price)) delete next.maxPrice;
  return next;
}

/**
 * The constraints a search answered with: those read against a collection of a listed kind
 * (events, courses), which knows the cities and tags; an article's reading knows neither.
 */
export function answeredConstraints(retrieval: Retrieval): StoredConstraints | undefined {
  const listed = (kind: string) => kind === 'events' || kind === 'courses';
  const answered = retrieval.results.find((r) => listed(r.collection.kind))?.collection;
  const collection = answered ?? retrieval.collections.find((c) => listed(c.kind));
  const query = collection ? retrieval.queries.get(collection.name) : undefined;
  return query ? toStored(query) : undefined;
}

/** The item of the list last shown (or in focus) that a pointer names. */
export function pointed(pointer: Pointer, state: DialogueState): ShownItem | undefined {
  const shown = state.shown;
  switch (pointer.kind) {
    case 'position':
      return pointer.index === -1 ? shown[shown.length - 1] : shown[pointer.index - 1];
    case 'cheapest': {
      const priced = shown.filter((s) => typeof s.price === 'number');
      return priced.sort((a, b) => (a.price as number) - (b.price as number))[0];
    }
    case 'earliest': {
      const dated = shown.filter((s) => s.startsAt);
      return dated.sort((a, b) => Date.parse(a.startsAt!) - Date.parse(b.startsAt!))[0];
    }
    case 'focus':
      return state.focus ?? (shown.length === 1 ? shown[0] : undefined);
  }
}

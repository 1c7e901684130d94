import {
  CHEAPEST,
  DATE_PHRASES,
  EARLIEST,
  ITEM_ASPECTS,
  MORE_ABOUT,
  ORDINALS,
  POINTERS,
  PRONOUNS,
  RESETS,
  SECOND_PERSON,
} from '../language/lexicon';
import { hasPhrase, normalize } from '../language/normalize';
import { leadingConnective, removePhrases } from '../language/phrases';
import type { KnowledgeQuery } from '../retrieval/knowledge-query';
import { stem } from '../retrieval/tokenize';
import { pointerIn, type Pointer } from './intents';
import { aspectsOf } from './knowledge-answer';
import type { ItemAspect } from './types';

/** A chat message as the builtin engine reads it, before it is read against the organization's data. */
export interface TurnReading {
  /** The connective the message starts with ("and", "und", "y", "what about"), if any. */
  connective?: string;
  /** The message without it, as written. */
  rest: string;
  /** A position in the list shown ("the second one"), the cheapest, the earliest, or "it". */
  pointer?: Pointer;
  aspects: ItemAspect[];
  /** It speaks to the organization ("when are you open?"), not of an item. */
  addressesUs: boolean;
  /** What is searched: the rest without the words of aspects, pointers and pronouns. */
  searchText: string;
}

const ASPECT_WORDS = Object.values(ITEM_ASPECTS).flat();
/** Words that pick an item rather than name a topic ("the second one", "the cheaper one", "tell me more"). */
const POINTING = [
  ...ORDINALS.flatMap(([, words]) => words),
  ...CHEAPEST,
  ...EARLIEST,
  ...POINTERS,
  ...MORE_ABOUT,
];
/** "start over", "anywhere": they clear constraints (see afterResets), they are no topic. */
const RESET_WORDS = Object.values(RESETS).flat();
/** Dates are read from the words around them: "this" of "this week" stays. */
const DATE_WORDS = Object.values(DATE_PHRASES).flat();

export function readTurn(text: string): TurnReading {
  const { connective, rest } = leadingConnective(text);
  const normalized = normalize(rest);
  return {
    connective,
    rest,
    // "this weekend" points at time, "forget that" at nothing.
    pointer: pointerIn(removePhrases(rest, [...DATE_WORDS, ...RESET_WORDS])),
    aspects: aspectsOf(rest),
    addressesUs: SECOND_PERSON.some((w) => hasPhrase(normalized, w)),
    searchText: removePhrases(
      rest,
      [...ASPECT_WORDS, ...POINTING, ...PRONOUNS, ...SECOND_PERSON, ...RESET_WORDS],
      DATE_WORDS,
    ),
  };
}

/**
 * The message's own topic words: what remains in every collection's reading once its filters
 * (dates, cities, tags, audiences, prices) are taken out. "Und am Wochenende?" has none: it
 * continues the topic before it; "How much does a full service cost?" has "full service".
 */
export function ownWords(queries: Map<string, KnowledgeQuery>): string[] {
  const readings = [...queries.values()];
  const first = readings[0];
  if (!first) return [];
  const inAll = (word: string) =>
    readings.every((q) => q.words.some((w) => w === word || stem(w) === stem(word)));
  return first.words.filter(inAll);
}

/** Whether the message filters the records of a listed kind (events, courses) by itself. */
export function filtersOf(queries: Map<string, KnowledgeQuery>): boolean {
  return [...queries.values()].some(
    (q) =>
      q.dates !== undefined ||
      q.cities.length > 0 ||
      q.audience.length > 0 ||
      q.maxPrice !== undefined ||
      q.levels.length > 0 ||
      q.tags.length > 0,
  );
}

import {
  ADULTS_ONLY,
  AUDIENCE_AMBIGUOUS,
  AUDIENCE_COMPOUND_PREFIXES,
  AUDIENCE_NEGATIONS,
  AUDIENCES,
} from './lexicon';
import { normalize } from './normalize';

/** Who a text says something is for, or a question asks for. */
export interface AudienceReading {
  /** Audience groups (keys of AUDIENCES): "kids", "adults". */
  groups: string[];
  /** The phrases that named an audience or an age, as normalize() writes them (negated ones too). */
  phrases: string[];
}

/** A phrase as normalize() writes it, spaces around, for a plain includes() on a normalized clause. */
const padded = (phrase: string) => normalize(phrase);
const NEGATIONS = AUDIENCE_NEGATIONS.map(padded);
const RESTRICTIONS = ADULTS_ONLY.map(padded);
const GROUP_WORDS = Object.entries(AUDIENCES).map(
  ([group, words]) => [group, words.map((word) => ({ word, phrase: padded(word) }))] as const,
);
const AMBIGUOUS = new Map(
  Object.entries(AUDIENCE_AMBIGUOUS).map(([word, { before, after }]) => [
    word,
    [...before.map((b) => padded(`${b} ${word}`)), ...after.map((a) => padded(`${word} ${a}`))],
  ]),
);

const YEARS = '(?:years?|year olds?|yrs|anos|jahren?|jahrige[n]?|ans)';
/** Ages as people write them ("ages 3-8", "aged 6", "a partir de 4 años", "ab 6 Jahren", "dès 5 ans"), on normalized text. */
const AGE_PATTERNS = [
  /(?<= )(?:ages?|aged|edad|edades|alter) (?:de )?(\d{1,2})(?= )/g,
  new RegExp(
    `(?<= )(?:from|ab|des|a partir de|von|de|over|mayores de|plus de|uber|mindestens) (\\d{1,2}) (?:(?:to|a|bis|et|y|and) \\d{1,2} )?${YEARS}(?= )`,
    'g',
  ),
  new RegExp(`(?<= )(\\d{1,2}) (?:(?:to|a|bis|et|y|and) )?\\d{1,2} ${YEARS}(?= )`, 'g'),
  /(?<= )(\d{1,2}) (?:year olds?|years? old|jahrige[n]?)(?= )/g,
  // A lowest age for grown-ups: "over 18", "18+", "ab 18", "mayores de 18" (not "ab 20 Uhr").
  /(?<= )(?:(?:over|mayores de|ab|plus de|uber) (1[6-9]|2[01])(?! (?:uhr|h|pm|am|hours?|horas|heures|eur|euros?) )|(1[6-9]|2[01]) plus)(?= )/g,
];

/** The youngest age a clause names, with its phrase; undefined when it names none. */
function minimumAge(clause: string): { years: number; phrase: string } | undefined {
  let youngest: { years: number; phrase: string } | undefined;
  for (const pattern of AGE_PATTERNS) {
    for (const match of clause.matchAll(pattern)) {
      const phrase = match[0].trim();
      // "under 10 years" is a highest age, not a lowest one.
      const before = clause.slice(0, match.index).trimEnd();
      if (/ (under|unter|menores de|moins de|below|bis)$/.test(before)) continue;
      const years = Number(match[1] ?? match[2]);
      if (!youngest || years < youngest.years) youngest = { years, phrase };
    }
  }
  return youngest;
}

/** Whether a clause says a word of an audience; words that are ordinary words in another language need a neighbour that makes them German. */
function says(clause: string, word: string, phrase: string): boolean {
  const contexts = AMBIGUOUS.get(word);
  return contexts ? contexts.some((c) => clause.includes(c)) : clause.includes(phrase);
}

/**
 * Who a text is for, clause by clause: the audience's words in the four languages, German
 * compounds ("Kinderkonzert"), and ages (a lowest age of 12 or less is for kids). A clause with a
 * negation ("not suitable for children", "no apto para niños", "keine Kinder") says nothing for
 * its audience, and a restriction to grown-ups ("adults only", "over 18") rules kids out.
 */
export function readAudience(text: string): AudienceReading {
  const clauses = text
    .replace(/(\d)\s*\+/g, '$1 plus ')
    .split(/[.!?;,:()\n]+|\s[-–—]\s/)
    .map(normalize)
    .filter((c) => c.trim() !== '');
  const groups = new Set<string>();
  const phrases: string[] = [];
  let adultsOnly = false;
  for (const clause of clauses) {
    const negated = NEGATIONS.some((p) => clause.includes(p));
    const restriction = RESTRICTIONS.find((p) => clause.includes(p));
    if (restriction) {
      adultsOnly = true;
      phrases.push(restriction.trim());
    }
    // Only a clause with a number can name an age.
    const age = /\d/.test(clause) ? minimumAge(clause) : undefined;
    if (age) {
      phrases.push(age.phrase);
      if (age.years >= 16) adultsOnly = true;
      else if (age.years <= 12 && !negated) groups.add('kids');
    }
    for (const [group, words] of GROUP_WORDS) {
      const said = words.filter((w) => says(clause, w.word, w.phrase)).map((w) => w.phrase);
      const compounds = (AUDIENCE_COMPOUND_PREFIXES[group] ?? []).flatMap((prefix) =>
        clause.split(' ').filter((w) => w.startsWith(prefix) && w.length >= prefix.length + 3),
      );
      if (said.length + compounds.length === 0) continue;
      phrases.push(...said.map((p) => p.trim()), ...compounds);
      if (!negated) groups.add(group);
    }
  }
  if (adultsOnly) {
    groups.delete('kids');
    groups.add('adults');
  }
  return { groups: [...groups], phrases: [...new Set(phrases)] };
}

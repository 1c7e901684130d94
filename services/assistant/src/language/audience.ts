import {
  ADULTS_ONLY,
  AUDIENCE_AMBIGUOUS,
  AUDIENCE_COMPOUND_PREFIXES,
  AUDIENCE_NEGATIONS,
  AUDIENCES,
} from './lexicon';
import { hasPhrase, normalize } from './normalize';

/** Who a text says something is for, or a question asks for. */
export interface AudienceReading {
  /** Audience groups (keys of AUDIENCES): "kids", "adults". */
  groups: string[];
  /** The phrases that named an audience or an age, as normalize() writes them (negated ones too). */
  phrases: string[];
}

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
function says(clause: string, word: string): boolean {
  const ambiguous = AUDIENCE_AMBIGUOUS[word];
  if (!ambiguous) return hasPhrase(clause, word);
  return (
    ambiguous.before.some((b) => hasPhrase(clause, `${b} ${word}`)) ||
    ambiguous.after.some((a) => hasPhrase(clause, `${word} ${a}`))
  );
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
    const negated = AUDIENCE_NEGATIONS.some((w) => hasPhrase(clause, w));
    const restriction = ADULTS_ONLY.find((w) => hasPhrase(clause, w));
    if (restriction) {
      adultsOnly = true;
      phrases.push(normalize(restriction).trim());
    }
    const age = minimumAge(clause);
    if (age) {
      phrases.push(age.phrase);
      if (age.years >= 16) adultsOnly = true;
      else if (age.years <= 12 && !negated) groups.add('kids');
    }
    for (const [group, words] of Object.entries(AUDIENCES)) {
      const said = words.filter((w) => says(clause, w));
      const compounds = (AUDIENCE_COMPOUND_PREFIXES[group] ?? []).flatMap((prefix) =>
        clause.split(' ').filter((w) => w.startsWith(prefix) && w.length >= prefix.length + 3),
      );
      if (said.length + compounds.length === 0) continue;
      phrases.push(...said.map((w) => normalize(w).trim()), ...compounds);
      if (!negated) groups.add(group);
    }
  }
  if (adultsOnly) {
    groups.delete('kids');
    groups.add('adults');
  }
  return { groups: [...groups], phrases: [...new Set(phrases)] };
}

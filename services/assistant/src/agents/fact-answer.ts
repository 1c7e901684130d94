import { titleOf } from '../knowledge/documents';
import { normalize } from '../language/normalize';
import {
  hasAddress,
  hasContact,
  hasDate,
  hasMoney,
  hasTime,
  weekdaysIn,
  wholeExcerpt,
} from '../language/values';
import type { RetrievedDocument } from '../retrieval/knowledge-retriever';
import { tokenize } from '../retrieval/tokenize';
import { blocksOf } from './passages';
import type { AskedFor, ItemAspect } from './types';

/** Longest line an answer quotes; longer ones are cut between clauses, never inside a value. */
const MAX_LINE = 400;

/** Whether a line carries a value of the kind an aspect asks for. */
const VALUE_OF: Record<ItemAspect, (line: string) => boolean> = {
  price: hasMoney,
  when: (line) => hasDate(line) || hasTime(line) || weekdaysIn(line).size > 0,
  where: hasAddress,
  age: (line) =>
    /\b\d{1,2}\s*(?:\+|-|–|to|bis|a|à)\s*\d{0,2}\b|\b(?:ages?|aged|jahre|anos|ans)\b/i.test(line),
  who: (line) => /\b(?:for|für|fur|para|pour)\s/i.test(line),
  hours: (line) => hasTime(line) || /\b(closed|geschlossen|cerrado|ferme)\b/i.test(line),
  contact: hasContact,
};

/** The text of a document as lines an answer can quote: its body, then its metadata as "Key: value". */
export function documentText(found: RetrievedDocument): string {
  const fields = found.doc.fields as {
    body?: string;
    text?: string;
    description?: string;
    metadata?: Record<string, unknown>;
  };
  const metadata = Object.entries(fields.metadata ?? {}).map(([k, v]) => `${k}: ${String(v)}`);
  return [fields.body ?? fields.text ?? fields.description ?? '', ...metadata].join('\n');
}

/** Sentences of a block; a sentence ends at ". " before a capital or a digit, never inside "10.00" or "z.B.". */
function sentencesIn(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[\p{Lu}\d])/u)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** A line narrowed to the clauses about one weekday ("Mo–Fr 9:00–18:00, Sa 10:00–14:00" -> "Sa 10:00–14:00"). */
function clausesFor(line: string, weekday: number): string {
  const clauses = line.split(/,\s+|;\s+/);
  if (clauses.length < 2) return line;
  const about = clauses.filter((c) => weekdaysIn(c).has(weekday));
  return about.length > 0 && about.length < clauses.length
    ? about.join(', ').replace(/[.;,]?$/, '.')
    : line;
}

interface Scored {
  text: string;
  order: number;
  score: number;
}

/**
 * The lines of a document that answer what was asked, best first: the question's words, a value of
 * the asked kind (a price for "how much"), the weekday asked about. Empty when nothing in it answers.
 */
export function answeringLines(found: RetrievedDocument, asked: AskedFor, limit = 2): string[] {
  const title = normalize(titleOf(found.doc));
  const terms = new Set(asked.words.flatMap((w) => tokenize(w)));
  const units = blocksOf(documentText(found))
    .filter((b) => !b.heading && normalize(b.text) !== title)
    .flatMap((b) => sentencesIn(b.text));
  const scored: Scored[] = units.map((text, order) => {
    const shared = tokenize(text).filter((t) => terms.has(t));
    let score = new Set(shared).size * 2;
    if (asked.aspects.some((a) => VALUE_OF[a](text))) score += 3;
    if (asked.weekday !== undefined) {
      const days = weekdaysIn(text);
      if (days.has(asked.weekday)) score += 3;
      else if (days.size > 0) score -= 1;
    }
    return { text, order, score };
  });
  const needed = asked.aspects.length > 0 ? 3 : 2;
  const best = scored
    .filter((s) => s.score >= needed)
    .sort((a, b) => b.score - a.score || a.order - b.order);
  const top = best[0];
  if (!top) return [];
  // A second line when it answers as well as the first (both halves of the opening hours).
  const chosen = best.filter((s) => s.score === top.score).slice(0, limit);
  return chosen
    .sort((a, b) => a.order - b.order)
    .map((s) => (asked.weekday !== undefined ? clausesFor(s.text, asked.weekday) : s.text))
    .map((line) => wholeExcerpt(line, MAX_LINE));
}

/** How well a document answers what was asked (for ordering documents of several collections). */
export function answerScore(found: RetrievedDocument, asked: AskedFor): number {
  const terms = new Set(asked.words.flatMap((w) => tokenize(w)));
  const own = new Set(tokenize(`${titleOf(found.doc)} ${documentText(found)}`));
  const shared = [...terms].filter((t) => own.has(t)).length;
  const valued = answeringLines(found, asked, 1).length > 0 ? 1 : 0;
  return (terms.size > 0 ? shared / terms.size : 0) * 2 + valued;
}

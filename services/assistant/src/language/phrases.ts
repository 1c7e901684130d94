import { CONNECTIVES } from './lexicon';
import { normalize } from './normalize';

/** One word of a text as written, with its normalized parts ("Straße" -> "strasse"). */
interface Word {
  start: number;
  end: number;
  parts: string[];
}

function wordsOf(raw: string): Word[] {
  return [...raw.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    parts: normalize(m[0]).trim().split(' ').filter(Boolean),
  }));
}

/** Where each phrase occurs as whole words (not over words already taken): the indexes of the words it covers. */
function occurrences(
  words: Word[],
  phrases: readonly string[],
  taken = new Set<number>(),
): Set<number> {
  const flat = words.flatMap((w, index) => w.parts.map((part) => ({ part, index })));
  const sorted = [...phrases].sort((a, b) => b.length - a.length);
  for (const phrase of sorted) {
    const wanted = normalize(phrase).trim().split(' ').filter(Boolean);
    if (wanted.length === 0) continue;
    for (let i = 0; i + wanted.length <= flat.length; i++) {
      const run = flat.slice(i, i + wanted.length);
      if (run.some((p) => taken.has(p.index))) continue;
      if (run.every((p, k) => p.part === wanted[k])) for (const p of run) taken.add(p.index);
    }
  }
  return taken;
}

/**
 * The text as written with the phrases taken out (whole words, accents and case ignored), so the
 * rest keeps what the reading of dates and prices needs ("20.50", "Öffnungszeiten"). Words of the
 * phrases to keep stay ("this" of "this week").
 */
export function removePhrases(
  raw: string,
  phrases: readonly string[],
  keep: readonly string[] = [],
): string {
  const words = wordsOf(raw);
  const kept = occurrences(words, keep);
  const taken = new Set(
    [...occurrences(words, phrases, new Set(kept))].filter((i) => !kept.has(i)),
  );
  let out = '';
  let at = 0;
  words.forEach((w, index) => {
    if (!taken.has(index)) return;
    out += `${raw.slice(at, w.start)} `;
    at = w.end;
  });
  return `${out}${raw.slice(at)}`.replace(/\s+/g, ' ').trim();
}

/**
 * A connective the message starts with ("and", "und", "y", "et", "what about", "also") and the
 * rest of the message as written: "Und am Wochenende?" -> { connective: "und", rest: "am Wochenende?" }.
 */
export function leadingConnective(raw: string): { connective?: string; rest: string } {
  const normalized = normalize(raw);
  const connective = [...CONNECTIVES]
    .sort((a, b) => b.length - a.length)
    .find((c) => normalized.startsWith(normalize(c)));
  if (!connective) return { rest: raw.trim() };
  const count = normalize(connective).trim().split(' ').length;
  const words = wordsOf(raw);
  let parts = 0;
  let next = words.length;
  for (let i = 0; i < words.length; i++) {
    if (parts >= count) {
      next = i;
      break;
    }
    parts += words[i]!.parts.length;
  }
  const rest = next < words.length ? raw.slice(words[next]!.start).trim() : '';
  return { connective, rest };
}

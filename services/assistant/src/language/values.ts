import { WEEKDAY_SHORT, WEEKDAYS } from './lexicon';

/**
 * Values as organizations write them in their own texts, in any of the four languages: prices,
 * times, dates, addresses, phone numbers and email addresses. The builtin engine uses them to pick
 * the line of a document that answers what was asked ("89 EUR", "Sa 10:00–14:00").
 */

const CURRENCY = '(?:€|\\$|£|eur|euros?|usd|gbp|chf|dollars?|pounds?|franken)';
const AMOUNT = '\\d{1,6}(?:[.,]\\d{1,2})?(?:,-|\\.-)?';
const MONEY = new RegExp(
  `(?:${CURRENCY}\\s?${AMOUNT}|${AMOUNT}\\s?${CURRENCY})(?![\\p{L}])|\\b(?:free|gratis|kostenlos|gratuit[oae]?)\\b`,
  'iu',
);
const TIME =
  /\b(?:[01]?\d|2[0-3])[:.h][0-5]\d\b|\b(?:1[0-2]|0?\d)\s?(?:am|pm)\b|\b(?:[01]?\d|2[0-3])\s?uhr\b/i;
const DATE =
  /\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}[./]\d{1,2}[./](?:\d{4}|\d{2})\b|\b\d{1,2}\.?\s(?:jan|feb|m[aä]r|apr|ma[iy]|jun|jul|aug|sep|o[ck]t|nov|de[cz])/i;
const STREET =
  /\b[\p{L}-]*(?:stra(?:ß|ss)e|str\.|gasse|weg|platz|allee|ring|damm|ufer)\s*\d+|\b\d+[a-z]?,?\s+[\p{L} ]{2,30}\b(?:street|st\.|road|rd\.|avenue|ave\.|lane|way|square|boulevard|blvd\.?)|\b(?:calle|c\/|avenida|avda\.?|plaza|paseo|rue|avenue|boulevard|place|chemin|via)\s+[\p{L} '-]{2,40}\d+/iu;
const POSTCODE = /\b\d{4,5}\s+\p{Lu}\p{Ll}{2,}/u;
const PHONE = /(?:\+|\b0)\d[\d\s/().-]{6,}\d\b/;
const EMAIL = /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/;

export const hasMoney = (text: string): boolean => MONEY.test(text);
export const hasTime = (text: string): boolean => TIME.test(text);
export const hasDate = (text: string): boolean => DATE.test(text);
export const hasAddress = (text: string): boolean => STREET.test(text) || POSTCODE.test(text);
export const hasContact = (text: string): boolean => PHONE.test(text) || EMAIL.test(text);

/** Lower case without accents, punctuation kept (weekday ranges are read from it). */
function plain(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

const WEEKDAY_FORMS: Array<{ form: string; day: number; short: boolean }> = [
  ...WEEKDAYS.flatMap((names, day) => names.map((form) => ({ form, day, short: false }))),
  // Plural and inflected forms: "Sundays", "samstags", "sábados".
  ...WEEKDAYS.flatMap((names, day) =>
    names.map((form) => ({ form: `${form}s`, day, short: false })),
  ),
  ...WEEKDAY_SHORT.flatMap((forms, day) => forms.map((form) => ({ form, day, short: true }))),
].sort((a, b) => b.form.length - a.form.length);
const WEEKDAY = `(${WEEKDAY_FORMS.map((w) => w.form).join('|')})\\.?`;
const RANGE = new RegExp(
  `\\b${WEEKDAY}\\s*(?:-|–|—|bis|to|through|thru|till|until|a|al|au)\\s*${WEEKDAY}(?![\\p{L}])`,
  'gu',
);
const SINGLE = new RegExp(`\\b${WEEKDAY}(?![\\p{L}])`, 'gu');
const CLOSED =
  /\b(closed|geschlossen|ruhetag|cerrado|ferme|fermee|fermes)\b|\b(?:[01]?\d|2[0-3])[:.h][0-5]\d\b/;

function dayOf(form: string): { day: number; short: boolean } | undefined {
  return WEEKDAY_FORMS.find((w) => w.form === form.replace(/\.$/, ''));
}

/**
 * The weekdays (0 = Monday) a line of opening hours covers: named days and ranges ("Mo–Fr",
 * "lunes a viernes", "Mon to Sat"). Short forms that are words too ("so", "do") count only in a
 * line that gives a time or says closed.
 */
export function weekdaysIn(line: string): Set<number> {
  const text = plain(line);
  const trusted = CLOSED.test(text) || hasTime(text);
  const days = new Set<number>();
  const usable = (w: { short: boolean } | undefined) => w !== undefined && (!w.short || trusted);
  for (const match of text.matchAll(RANGE)) {
    const from = dayOf(match[1] ?? '');
    const to = dayOf(match[2] ?? '');
    if (!usable(from) || !usable(to)) continue;
    for (let d = from!.day; ; d = (d + 1) % 7) {
      days.add(d);
      if (d === to!.day) break;
    }
  }
  for (const match of text.matchAll(SINGLE)) {
    const day = dayOf(match[1] ?? '');
    if (usable(day)) days.add(day!.day);
  }
  return days;
}

/**
 * At most max characters of a text, cut between clauses or words and never inside one: a value
 * ("10:00–14:00", "89 EUR") is shown whole or not at all. An ellipsis marks a cut.
 */
export function wholeExcerpt(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const head = flat.slice(0, max);
  const sentence = Math.max(head.lastIndexOf('. '), head.lastIndexOf('! '), head.lastIndexOf('? '));
  if (sentence >= max / 2) return `${head.slice(0, sentence + 1)} …`;
  const clause = Math.max(head.lastIndexOf(', '), head.lastIndexOf('; '));
  if (clause >= max / 2) return `${head.slice(0, clause)} …`;
  const word = head.lastIndexOf(' ');
  return `${word > 0 ? head.slice(0, word) : head} …`;
}

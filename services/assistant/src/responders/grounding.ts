import * as chrono from 'chrono-node';
import { LinkifyIt } from 'linkify-it';
import { findPhoneNumbersInText, type CountryCode } from 'libphonenumber-js';
import { DateTime } from 'luxon';
import { normalize } from '../language/normalize';
import { stem, tokenize } from '../retrieval/tokenize';

/** What a model-written reply stated that the facts and the conversation do not hold. */
export type GroundingIssueKind =
  | 'price'
  | 'number'
  | 'date'
  | 'time'
  | 'url'
  | 'email'
  | 'phone'
  | 'name'
  | 'unsupported'
  | 'loop'
  | 'length';

export interface GroundingIssue {
  kind: GroundingIssueKind;
  /** The words of the reply that failed, as written (at most 80 characters). */
  value: string;
}

/**
 * What a reply may state: the facts given for the turn, and what the user said. Prices, dates and
 * times come from the facts only (a user's guess is no fact); numbers, names, links and contacts
 * may also be the user's own (an order number, their email).
 */
export interface GroundingSources {
  /** Rendered facts, the service's own text (hand-over, contacts, filters in force), instructions, earlier replies. */
  facts: string[];
  /** The user's messages. */
  userWords: string[];
  /** Items the turn shows: counts and ordinals up to this are not facts of their own. */
  itemCount: number;
  /** Titles of items shown earlier that this turn's facts do not hold: naming one answers about the wrong item. */
  otherItems?: string[];
  /** The turn's date and the organization's zone, for relative dates ("tomorrow") on both sides. */
  now: Date;
  timeZone: string;
}

/** The model's reply, with how it ended (a reply that ran into its token cap was cut, not finished). */
export interface ModelReply {
  text: string;
  tokensOutput: number;
}

/** Tokens a model reply may take before it is taken for a runaway (content's default output cap). */
export const REPLY_TOKEN_CAP = 256;

const DATE_PARSERS = [chrono.casual, chrono.de.casual, chrono.es.casual, chrono.fr.casual];
const links = new LinkifyIt({ fuzzyLink: true });

const NUMBER = /\d+(?:[.,]\d+)*/g;
const CURRENCY = String.raw`(?:€|\$|£|\b(?:eur|euros?|usd|dollars?|gbp|pounds?|chf|francs?)\b)`;
const AMOUNT = String.raw`\d+(?:[.,]\d+)*(?:,-)?`;
/** An amount of money: "89 EUR", "€ 89", "89,00 €", "$12". */
const PRICE = new RegExp(
  String.raw`${CURRENCY}\s?(${AMOUNT})|(${AMOUNT})\s?${CURRENCY}|\b(?:price|prices|cost|costs|preis|preise|kosten|kostet|precio|precios|cuesta|prix|coute|tarif)\w*\s*[:=]?\s*(${AMOUNT})`,
  'giu',
);
const FREE = /\b(free|gratis|kostenlos|gratuit|gratuite|libre)\b/i;
/** "1." or "2)" opening a line: a list's numbering, not a fact. */
const LIST_MARKER = /^(\s*[-*]?\s*)(\d{1,2})[.)](?=\s)/gm;

type Unit = 'year' | 'month' | 'day' | 'weekday' | 'hour' | 'minute';
type Moment = Partial<Record<Unit, number>> & { meridiem?: boolean };
const DATE_UNITS: Unit[] = ['year', 'month', 'day', 'weekday'];
const TIME_UNITS: Unit[] = ['hour', 'minute'];

/** Share of a reply's content words that must be in the sources (the rest is the model's own wording). */
const SUPPORTED_SHARE = 0.5;
/** Replies with fewer content words than this are not judged by their share (a greeting, "yes"). */
const SUPPORT_MIN_WORDS = 4;
/** Words of any helpful reply, and the function words of the other three languages: not claims. */
const CONVERSATIONAL = new Set(
  (
    'hello welcome sorry thank thanks happy glad sure great course question questions answer ask ' +
    'information find found look know let more also just here there today time anything something ' +
    'else would could should please like able info detail details check offer offers available ' +
    'hallo gerne danke bitte leider unsere unser eine einen einem einer oder aber auch noch sind wird ' +
    'haben kann konnen konnte diese dieser dieses mochten hola gracias claro nuestro nuestra nuestros ' +
    'para pero tambien esta estan puede pueden tiene tienen bonjour merci votre notre nous vous avec ' +
    'pour dans sont peut pouvez aussi cette'
  )
    .split(' ')
    .map(stem),
);

/** Words that stand capitalized in any sentence without naming anything. */
const PLAIN_CAPITALS = new Set([
  'i',
  'im',
  'ill',
  'ive',
  'id',
  'ok',
  'okay',
  'mr',
  'mrs',
  'ms',
  'dr',
]);
/** Small words a name may hold between its capitalized words ("Festival of Lights", "Casa de Campo"). */
const NAME_JOINERS = new Set(
  'of the for at and on in de del la le les des du di da von vom zum zur der die das und am im y et'.split(
    ' ',
  ),
);
const SPANISH = new Set(
  'el la los las y es son no un una para con que del por en su sus al lo como muy pero'.split(' '),
);
const FRENCH = new Set(
  'le la les et est sont ne pas un une pour avec que des du au aux vous nous il elle sur dans'.split(
    ' ',
  ),
);
const GERMAN = new Set(
  'der die das und ist sind nicht ein eine einen wir ihr sie für mit auf zu im am den dem des bei uns'.split(
    ' ',
  ),
);
const ENGLISH = new Set(
  'the and is are not a an we you your for with on to in at of our this that it can will'.split(
    ' ',
  ),
);

/** The reply with matched spans blanked out (same length), so later readers do not see them again. */
class Masked {
  constructor(public text: string) {}
  blank(start: number, end: number): void {
    this.text = this.text.slice(0, start) + ' '.repeat(end - start) + this.text.slice(end);
  }
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}

/** A number as it may be meant: "1.200,50" and "1,200.50" both; "89,-" and "89.00" are 89. */
export function numberKeys(token: string): string[] {
  const t = token.replace(/,-$/, '');
  const keys = new Set<string>([t.replace(/[.,]/g, '')]);
  const dotDecimal = Number(t.replace(/,/g, ''));
  const commaDecimal = Number(t.replace(/\./g, '').replace(',', '.'));
  for (const n of [dotDecimal, commaDecimal]) if (Number.isFinite(n)) keys.add(String(n));
  return [...keys];
}

function momentsOf(result: chrono.ParsedResult): Moment[] {
  const moments: Moment[] = [];
  for (const components of [result.start, result.end]) {
    if (!components) continue;
    const moment: Moment = {};
    for (const unit of [...DATE_UNITS, ...TIME_UNITS])
      if (components.isCertain(unit)) moment[unit] = components.get(unit) ?? undefined;
    if (components.isCertain('meridiem')) moment.meridiem = true;
    // A full date has a weekday even when the text did not say it.
    if (moment.weekday === undefined && moment.year && moment.month && moment.day)
      moment.weekday = new Date(Date.UTC(moment.year, moment.month - 1, moment.day)).getUTCDay();
    moments.push(moment);
  }
  return moments;
}

function reference(now: Date, timeZone: string): chrono.ParsingReference {
  return { instant: now, timezone: DateTime.fromJSDate(now, { zone: timeZone }).offset };
}

/** Whether a source moment holds every unit the reply's moment states (an hour of "6" may mean 18). */
function covers(source: Moment, said: Moment, units: Unit[]): boolean {
  return units.every((unit) => {
    const value = said[unit];
    if (value === undefined) return true;
    if (source[unit] === value) return true;
    return unit === 'hour' && !said.meridiem && value < 12 && source.hour === value + 12;
  });
}

/**
 * Every fact a reply may state, read once from the sources. Dates and phone numbers are the
 * costly readers (four date grammars, a phone matcher over all the facts): they read the facts
 * only when the reply states a date or holds a digit, which most replies do not.
 */
export class GroundedFacts {
  private readonly numbers = new Set<string>();
  /** Numbers of the facts alone: hours written in ways no date reader takes. */
  private readonly factNumbers = new Set<string>();
  private readonly prices = new Set<string>();
  private readonly urls = new Set<string>();
  private readonly emails = new Set<string>();
  private phoneIndex?: { country?: CountryCode; phones: Set<string> };
  private momentIndex?: Moment[];
  private readonly words = new Set<string>();
  /** Index terms (stemmed content words) of the sources. */
  private readonly terms = new Set<string>();
  /** The language the facts are written in (a reply in another one words them in other words). */
  private readonly language: ReturnType<typeof languageOf>;
  /** Today is a fact of every turn ("open today until 18:00"). */
  private readonly today: string;
  /** The facts and the user's words, as one text. */
  private readonly text: string;

  constructor(private readonly sources: GroundingSources) {
    this.today = DateTime.fromJSDate(sources.now, { zone: sources.timeZone }).toFormat(
      'cccc d LLLL yyyy',
    );
    const facts = [...sources.facts, this.today].join('\n');
    const text = `${facts}\n${sources.userWords.join('\n')}`;
    this.text = text;
    for (const match of links.match(text) ?? []) {
      if (match.schema === 'mailto:') this.emails.add(emailKey(match.url));
      else this.urls.add(urlKey(match.url));
    }
    for (const match of facts.matchAll(PRICE))
      for (const key of numberKeys(match[1] ?? match[2] ?? match[3] ?? '')) this.prices.add(key);
    if (FREE.test(facts)) this.prices.add('0');
    for (const [token] of text.matchAll(NUMBER))
      for (const key of numberKeys(token)) this.numbers.add(key);
    for (const [token] of facts.matchAll(NUMBER))
      for (const key of numberKeys(token)) this.factNumbers.add(key);
    for (const word of normalize(text).trim().split(' ')) {
      this.words.add(word);
      this.words.add(stem(word));
    }
    for (const term of tokenize(text)) this.terms.add(term);
    this.language = languageOf(sources.facts.join('\n'));
  }

  /** What the reply states that the sources do not hold; empty when every fact is grounded. */
  issuesOf(reply: ModelReply): GroundingIssue[] {
    const issues: GroundingIssue[] = [];
    if (runsAway(reply)) issues.push({ kind: 'length', value: excerpt(reply.text.slice(-80)) });
    const loop = repeated(reply.text);
    if (loop) issues.push({ kind: 'loop', value: excerpt(loop) });
    const masked = new Masked(reply.text);
    this.checkLinks(masked, issues);
    this.checkDates(masked, issues);
    this.checkPhones(masked, issues);
    this.checkPrices(masked, issues);
    this.checkNumbers(masked, issues);
    this.checkNames(masked, issues);
    this.checkOtherItems(reply.text, issues);
    this.checkSupport(masked, issues);
    return issues;
  }

  private checkLinks(masked: Masked, issues: GroundingIssue[]): void {
    for (const match of links.match(masked.text) ?? []) {
      const email = match.schema === 'mailto:';
      const known = email ? this.emails.has(emailKey(match.url)) : this.urls.has(urlKey(match.url));
      if (!known) issues.push({ kind: email ? 'email' : 'url', value: excerpt(match.raw) });
      masked.blank(match.index, match.lastIndex);
    }
  }

  /** The phone numbers of the sources, read with the country of their first international one. */
  private get phoneFacts(): { country?: CountryCode; phones: Set<string> } {
    if (this.phoneIndex) return this.phoneIndex;
    const international = findPhoneNumbersInText(this.text).find((p) => p.number.country);
    const country = international?.number.country;
    const phones = new Set(findPhoneNumbersInText(this.text, country).map((p) => p.number.number));
    this.phoneIndex = { country, phones };
    return this.phoneIndex;
  }

  /** The dates and times of the facts (not the user's words: a user's guess is no fact). */
  private get moments(): Moment[] {
    if (this.momentIndex) return this.momentIndex;
    const ref = reference(this.sources.now, this.sources.timeZone);
    const moments: Moment[] = [];
    for (const source of [...this.sources.facts, this.today])
      for (const parser of DATE_PARSERS)
        for (const result of parser.parse(source, ref)) moments.push(...momentsOf(result));
    this.momentIndex = moments;
    return moments;
  }

  private checkPhones(masked: Masked, issues: GroundingIssue[]): void {
    if (!/\d/.test(masked.text)) return; // no phone number without a digit
    const { country, phones } = this.phoneFacts;
    for (const phone of findPhoneNumbersInText(masked.text, country)) {
      // A bare number only reads as a phone with a country; dates and prices are not phones.
      const raw = masked.text.slice(phone.startsAt, phone.endsAt);
      if (!/[\s()/+-]/.test(raw.trim()) && !raw.trim().startsWith('0')) continue;
      if (!phones.has(phone.number.number)) issues.push({ kind: 'phone', value: excerpt(raw) });
      masked.blank(phone.startsAt, phone.endsAt);
    }
  }

  private checkDates(masked: Masked, issues: GroundingIssue[]): void {
    const ref = reference(this.sources.now, this.sources.timeZone);
    for (const parser of DATE_PARSERS) {
      for (const result of parser.parse(masked.text, ref)) {
        // "do", "so", "mi" are weekdays to some reader (Do = Donnerstag): a date needs more than that.
        if (!/\d/.test(result.text) && result.text.trim().length <= 3) continue;
        for (const said of momentsOf(result)) {
          const kind = this.momentIssue(said);
          if (kind) issues.push({ kind, value: excerpt(result.text) });
        }
        masked.blank(result.index, result.index + result.text.length);
      }
    }
  }

  /** Whether a date or time said is in the sources: all of its units in one moment of theirs. */
  private momentIssue(said: Moment): 'date' | 'time' | undefined {
    const all = [...DATE_UNITS, ...TIME_UNITS];
    if (this.moments.some((m) => covers(m, said, all))) return undefined;
    const dated = DATE_UNITS.some((u) => said[u] !== undefined);
    if (!dated && this.timeInNumbers(said)) return undefined;
    if (dated && !this.moments.some((m) => covers(m, said, DATE_UNITS))) return 'date';
    return 'time';
  }

  /** A time the sources write in a way no date reader takes ("9-18", "ab 19 h"): its numbers are there. */
  private timeInNumbers(said: Moment): boolean {
    const hour = said.hour;
    if (hour === undefined) return false;
    const known = (n: number) => this.factNumbers.has(String(n));
    const hourKnown =
      known(hour) ||
      (!said.meridiem && hour < 12 && known(hour + 12)) ||
      (hour > 12 && known(hour - 12));
    const minute = said.minute ?? 0;
    return hourKnown && (minute === 0 || known(minute));
  }

  private checkPrices(masked: Masked, issues: GroundingIssue[]): void {
    for (const match of [...masked.text.matchAll(PRICE)]) {
      const amount = match[1] ?? match[2] ?? match[3] ?? '';
      if (!numberKeys(amount).some((key) => this.prices.has(key)))
        issues.push({ kind: 'price', value: excerpt(match[0]) });
      masked.blank(match.index, match.index + match[0].length);
    }
  }

  private checkNumbers(masked: Masked, issues: GroundingIssue[]): void {
    for (const match of [...masked.text.matchAll(LIST_MARKER)]) {
      const start = match.index + (match[1]?.length ?? 0);
      masked.blank(start, start + (match[2]?.length ?? 0) + 1);
    }
    for (const match of masked.text.matchAll(NUMBER)) {
      const token = match[0];
      const value = Number(token);
      if (Number.isInteger(value) && value >= 0 && value <= this.sources.itemCount) continue;
      if (!numberKeys(token).some((key) => this.numbers.has(key)))
        issues.push({ kind: 'number', value: excerpt(token) });
    }
  }

  private checkNames(masked: Masked, issues: GroundingIssue[]): void {
    const plain = masked.text.replace(/[*_`#>|[\]()"“”„«»]/g, ' ');
    const german = readsGerman(plain);
    for (const sentence of plain.split(/[.!?:;\n•·–—]+|\s-\s/)) {
      for (const name of capitalizedRuns(sentence)) {
        // German capitalizes every noun: only names of two words or more are names there.
        if (german && name.length < 2) continue;
        const unknown = name.filter((word) => !this.knowsWord(word));
        if (unknown.length > 0) issues.push({ kind: 'name', value: excerpt(name.join(' ')) });
      }
    }
  }

  private checkOtherItems(text: string, issues: GroundingIssue[]): void {
    const said = normalize(text);
    for (const title of this.sources.otherItems ?? [])
      if (normalize(title).trim() && said.includes(normalize(title)))
        issues.push({ kind: 'name', value: excerpt(title) });
  }

  /** A reply mostly in words the sources do not have says things they do not say. */
  private checkSupport(masked: Masked, issues: GroundingIssue[]): void {
    if (languageOf(masked.text) !== this.language) return;
    const content = tokenize(masked.text).filter(
      (term) => term.length >= 4 && !/^\d/.test(term) && !CONVERSATIONAL.has(term),
    );
    if (content.length < SUPPORT_MIN_WORDS) return;
    const unsupported = content.filter((term) => !this.terms.has(term));
    if (content.length - unsupported.length < SUPPORTED_SHARE * content.length)
      issues.push({ kind: 'unsupported', value: excerpt([...new Set(unsupported)].join(' ')) });
  }

  private knowsWord(word: string): boolean {
    const key = normalize(word).trim();
    if (key === '' || PLAIN_CAPITALS.has(key.replace(/ /g, ''))) return true;
    return key.split(' ').every((part) => this.words.has(part) || this.words.has(stem(part)));
  }
}

function urlKey(url: string): string {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname.toLowerCase().replace(/^www\./, '');
    return `${host}${parsed.pathname.replace(/\/+$/, '')}${parsed.search}`;
  } catch {
    return url.toLowerCase();
  }
}

function emailKey(url: string): string {
  return url.replace(/^mailto:/i, '').toLowerCase();
}

/** The capitalized words a sentence names things with, in runs ("Kids Bike Workshop"), its first word left out. */
function capitalizedRuns(sentence: string): string[][] {
  const tokens = [...sentence.matchAll(/[\p{L}][\p{L}\p{M}\p{N}'’-]*/gu)];
  const runs: string[][] = [];
  let run: string[] = [];
  let joiners: string[] = [];
  let lastEnd = -1;
  const close = () => {
    if (run.length > 0) runs.push(run);
    run = [];
    joiners = [];
  };
  tokens.forEach((token, i) => {
    const word = token[0];
    const adjacent = lastEnd >= 0 && /^\s+$/.test(sentence.slice(lastEnd, token.index));
    lastEnd = token.index + word.length;
    if (!adjacent) close();
    if (i === 0) return; // a sentence's first word is capitalized whatever it is
    if (/^\p{Lu}/u.test(word)) {
      run.push(...joiners, word);
      joiners = [];
    } else if (run.length > 0 && NAME_JOINERS.has(word.toLowerCase())) joiners.push(word);
    else close();
  });
  close();
  return runs.map((r) => r.filter((w) => /^\p{Lu}/u.test(w)));
}

/** The language a text reads in, by its function words (English when none tells). */
function languageOf(text: string): 'en' | 'de' | 'es' | 'fr' {
  const tokens = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  const counts = (
    [
      ['en', ENGLISH],
      ['de', GERMAN],
      ['es', SPANISH],
      ['fr', FRENCH],
    ] as const
  ).map(([language, words]) => [language, tokens.filter((t) => words.has(t)).length] as const);
  const [best] = [...counts].sort((a, b) => b[1] - a[1]);
  return best && best[1] > 0 ? best[0] : 'en';
}

function readsGerman(text: string): boolean {
  return languageOf(text) === 'de';
}

/** A reply that ran into its token cap ends mid-sentence. */
function runsAway(reply: ModelReply): boolean {
  return reply.tokensOutput >= REPLY_TOKEN_CAP && !/[.!?)…"»\]*]\s*$/.test(reply.text);
}

/** The sentence or run of words a looping reply repeats, if it does. */
function repeated(text: string): string | undefined {
  const seen = new Set<string>();
  for (const sentence of text.split(/(?<=[.!?])\s+|\n+/)) {
    const key = normalize(sentence).trim();
    if (key.split(' ').length < 4) continue;
    if (seen.has(key)) return sentence;
    seen.add(key);
  }
  const words = normalize(text).trim().split(' ');
  const counts = new Map<string, number>();
  for (let i = 0; i + 8 <= words.length; i++) {
    const gram = words.slice(i, i + 8).join(' ');
    const count = (counts.get(gram) ?? 0) + 1;
    if (count >= 3) return gram;
    counts.set(gram, count);
  }
  return undefined;
}

import { DateTime } from 'luxon';
import {
  AMBIGUOUS_MONTHS,
  DATE_PHRASES,
  MONTHS,
  NOT_TOMORROW,
  WEEKDAYS,
} from '../language/lexicon';
import { firstPhrase, normalize, withoutPhrases } from '../language/normalize';

/** A span of time the user's words name, as instants [from, to). */
export interface DateRange {
  from: Date;
  to: Date;
  /** The words that named it ("this weekend"), for replies and for removal from the search text. */
  phrase: string;
}

type Span = [DateTime, DateTime];

function weekendOf(today: DateTime): DateTime {
  // Saturday of this week; on Sunday that is yesterday (the weekend still running).
  return today.startOf('week').plus({ days: 5 });
}

function day(d: DateTime): Span {
  return [d.startOf('day'), d.startOf('day').plus({ days: 1 })];
}

/** The coming day of that weekday (today counts unless skipToday). */
function weekday(today: DateTime, index: number, skipToday: boolean): DateTime {
  let days = (index + 1 - today.weekday + 7) % 7;
  if (days === 0 && skipToday) days = 7;
  return today.plus({ days });
}

/** The coming month of that number: this year's unless it is over. */
function month(today: DateTime, index: number): Span {
  const year = index < today.month ? today.year + 1 : today.year;
  const start = today.set({ year, month: index, day: 1 }).startOf('month');
  return [start, start.plus({ months: 1 })];
}

function relative(
  text: string,
  today: DateTime,
  base: DateTime,
): { span: Span; phrase: string } | undefined {
  const rules: Array<[readonly string[], () => Span]> = [
    [
      DATE_PHRASES.nextWeekend,
      () => [weekendOf(today).plus({ weeks: 1 }), weekendOf(today).plus({ weeks: 1, days: 2 })],
    ],
    [DATE_PHRASES.thisWeekend, () => [weekendOf(today), weekendOf(today).plus({ days: 2 })]],
    // "am Wochenende" after "next week" is that week's weekend.
    [DATE_PHRASES.weekend, () => [weekendOf(base), weekendOf(base).plus({ days: 2 })]],
    [
      DATE_PHRASES.nextWeek,
      () => [today.startOf('week').plus({ weeks: 1 }), today.startOf('week').plus({ weeks: 2 })],
    ],
    [DATE_PHRASES.thisWeek, () => [today, today.startOf('week').plus({ weeks: 1 })]],
    [
      DATE_PHRASES.nextMonth,
      () => [
        today.startOf('month').plus({ months: 1 }),
        today.startOf('month').plus({ months: 2 }),
      ],
    ],
    [DATE_PHRASES.thisMonth, () => [today, today.startOf('month').plus({ months: 1 })]],
    [DATE_PHRASES.dayAfterTomorrow, () => day(today.plus({ days: 2 }))],
    [DATE_PHRASES.today, () => day(today)],
  ];
  for (const [phrases, span] of rules) {
    const phrase = firstPhrase(text, phrases);
    if (phrase) return { span: span(), phrase };
  }
  const tomorrow = firstPhrase(withoutPhrases(text, NOT_TOMORROW), DATE_PHRASES.tomorrow);
  if (tomorrow) return { span: day(today.plus({ days: 1 })), phrase: tomorrow };
  return undefined;
}

const ORDINAL_SUFFIX = '(?:st|nd|rd|th|er|eme|o|a)?';

/** The coming date with this day and month (this year's unless it is over), if it exists. */
function dated(
  today: DateTime,
  dayOfMonth: number,
  monthIndex: number,
  year?: number,
): Span | undefined {
  const fullYear = year !== undefined && year < 100 ? 2000 + year : year;
  let date = DateTime.fromObject(
    { year: fullYear ?? today.year, month: monthIndex, day: dayOfMonth },
    { zone: today.zone },
  );
  if (!date.isValid) return undefined;
  if (fullYear === undefined && date < today) date = date.plus({ years: 1 });
  return day(date);
}

/**
 * A day named by its date: "12 December", "December 12th", "12. Dezember", "12 de diciembre",
 * "le 12 décembre", "12.12.", "12/12/2026", "2026-12-12".
 */
function explicit(
  text: string,
  raw: string,
  today: DateTime,
): { span: Span; phrase: string } | undefined {
  for (const [index, names] of MONTHS.entries()) {
    for (const name of names) {
      const pattern = new RegExp(
        ` (\\d{1,2})${ORDINAL_SUFFIX} (?:de |of )?${name}(?: (20\\d\\d))? | ${name} (\\d{1,2})${ORDINAL_SUFFIX}(?: (20\\d\\d))? `,
      );
      const match = pattern.exec(text);
      if (!match) continue;
      const dayOfMonth = Number(match[1] ?? match[3]);
      const year = match[2] ?? match[4];
      const span = dated(today, dayOfMonth, index + 1, year ? Number(year) : undefined);
      // "Saturday 12 December": the weekday is part of the date.
      const before = text.slice(0, match.index).trim().split(' ').pop() ?? '';
      const weekday = WEEKDAYS.some((w) => w.includes(before)) ? `${before} ` : '';
      if (span) return { span, phrase: `${weekday}${match[0].trim()}` };
    }
  }
  const iso = /\b(20\d\d)-(\d\d)-(\d\d)\b/.exec(raw);
  if (iso) {
    const span = dated(today, Number(iso[3]), Number(iso[2]), Number(iso[1]));
    if (span) return { span, phrase: `${iso[1]} ${iso[2]} ${iso[3]}` };
  }
  // "12.12." or "12.12.2026" or "12/12/2026": a trailing dot or a year tells it from "12.50" or "24/7".
  const numeric =
    /(?<![\d.,/])(\d{1,2})(?:\.(\d{1,2})\.(?:(\d{2,4})\b)?|\/(\d{1,2})\/(\d{2,4})\b)/.exec(raw);
  if (numeric) {
    const month = Number(numeric[2] ?? numeric[4]);
    const year = numeric[3] ?? numeric[5];
    const span = dated(today, Number(numeric[1]), month, year ? Number(year) : undefined);
    if (span)
      return {
        span,
        phrase: [numeric[1], numeric[2] ?? numeric[4], year].filter(Boolean).join(' '),
      };
  }
  return undefined;
}

function named(
  text: string,
  today: DateTime,
  anchor?: Span,
): { span: Span; phrase: string } | undefined {
  for (const [index, names] of WEEKDAYS.entries()) {
    for (const name of names) {
      const next = DATE_PHRASES.next.find(
        (n) => text.includes(` ${n} ${name} `) || text.includes(` ${name} ${n} `),
      );
      if (next) return { span: day(weekday(today, index, true)), phrase: `${next} ${name}` };
      if (!text.includes(` ${name} `) && !text.includes(` ${name}s `)) continue;
      // "and on Saturday?" after "next week" is that week's Saturday.
      const within = anchor ? weekday(anchor[0], index, false) : undefined;
      const date = within && within < anchor![1] ? within : weekday(today, index, false);
      return { span: day(date), phrase: text.includes(` ${name} `) ? name : `${name}s` };
    }
  }
  for (const [index, names] of MONTHS.entries()) {
    for (const name of names) {
      if (!text.includes(` ${name} `)) continue;
      // "may" is also a verb, "mars" a planet: only after in/en/im/au/de or before a year.
      const marked = new RegExp(
        ` (in|en|im|au|de|during|of|del) ${name} | ${name} (20\\d\\d) `,
      ).test(text);
      if (AMBIGUOUS_MONTHS.has(name) && !marked) continue;
      return { span: month(today, index + 1), phrase: name };
    }
  }
  return undefined;
}

/**
 * The span of time a question names ("this weekend", "in March", "next Friday", "tomorrow"; the
 * same in Spanish, German and French), resolved in timeZone against now. Written here rather than
 * with chrono-node, which returns points, not spans, and reads "weekend" only in English. "next Friday" is the
 * first Friday after today; a month is the coming one (this year's unless it is over). A weekend
 * or weekday named without "this" or "next" lies in the period under discussion (around: the
 * span a follow-up continues) when one is given and still to come. Undefined when the words name
 * no time.
 */
export function resolveDateRange(
  text: string,
  now: Date,
  timeZone: string,
  around?: Pick<DateRange, 'from' | 'to'>,
): DateRange | undefined {
  const normalized = normalize(text);
  const today = DateTime.fromJSDate(now, { zone: timeZone }).startOf('day');
  const anchor = anchorOf(around, today, timeZone);
  const found =
    explicit(normalized, text, today) ??
    relative(normalized, today, anchor?.[0] ?? today) ??
    named(normalized, today, anchor);
  if (!found) return undefined;
  const [from, to] = found.span;
  return { from: from.toJSDate(), to: to.toJSDate(), phrase: found.phrase };
}

/** The part of a period under discussion still to come, from its first day; undefined when it is over. */
function anchorOf(
  around: Pick<DateRange, 'from' | 'to'> | undefined,
  today: DateTime,
  timeZone: string,
): Span | undefined {
  if (!around) return undefined;
  const from = DateTime.fromJSDate(around.from, { zone: timeZone }).startOf('day');
  const to = DateTime.fromJSDate(around.to, { zone: timeZone });
  if (to <= today) return undefined;
  return [from < today ? today : from, to];
}

import { DateTime } from 'luxon';

/** A span of time the user's words name, as instants [from, to). */
export interface DateRange {
  from: Date;
  to: Date;
  /** The words that named it ("this weekend"), for replies and for removal from the search text. */
  phrase: string;
}

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
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
const MONTH_PATTERN = MONTHS.map((m) =>
  m === 'may' ? '(?:in|during) may' : `${m}|${m.slice(0, 3)}`,
).join('|');

type Resolver = (today: DateTime, match: RegExpExecArray) => [DateTime, DateTime];

function weekendOf(today: DateTime): DateTime {
  // Saturday of this week; on Sunday that is yesterday (the weekend still running).
  return today.startOf('week').plus({ days: 5 });
}

function nextWeekday(today: DateTime, name: string, skipToday: boolean): DateTime {
  const target = WEEKDAYS.indexOf(name) + 1;
  let days = (target - today.weekday + 7) % 7;
  if (days === 0 && skipToday) days = 7;
  return today.plus({ days });
}

function monthSpan(today: DateTime, word: string): [DateTime, DateTime] {
  const index =
    MONTHS.findIndex((m) => word.replace(/^(in|during) /, '').startsWith(m.slice(0, 3))) + 1;
  // The coming one: this year's unless it is over.
  const year = index < today.month ? today.year + 1 : today.year;
  const start = today.set({ year, month: index, day: 1 }).startOf('month');
  return [start, start.plus({ months: 1 })];
}

const day = (d: DateTime): [DateTime, DateTime] => [
  d.startOf('day'),
  d.startOf('day').plus({ days: 1 }),
];

/** Phrases, most specific first (so "next weekend" is not read as "weekend"). */
const PHRASES: Array<[RegExp, Resolver]> = [
  [
    /\bnext weekend\b/,
    (t) => [weekendOf(t).plus({ weeks: 1 }), weekendOf(t).plus({ weeks: 1, days: 2 })],
  ],
  [
    /\b(?:this|the|over the|at the) weekend\b|\bweekend\b/,
    (t) => [weekendOf(t), weekendOf(t).plus({ days: 2 })],
  ],
  [
    /\bnext week\b/,
    (t) => [t.startOf('week').plus({ weeks: 1 }), t.startOf('week').plus({ weeks: 2 })],
  ],
  [/\bthis week\b/, (t) => [t, t.startOf('week').plus({ weeks: 1 })]],
  [
    /\bnext month\b/,
    (t) => [t.startOf('month').plus({ months: 1 }), t.startOf('month').plus({ months: 2 })],
  ],
  [/\bthis month\b/, (t) => [t, t.startOf('month').plus({ months: 1 })]],
  [/\b(?:today|tonight)\b/, (t) => day(t)],
  [/\btomorrow\b/, (t) => day(t.plus({ days: 1 }))],
  [
    new RegExp(`\\bnext (${WEEKDAYS.join('|')})\\b`),
    (t, m) => day(nextWeekday(t, m[1] as string, true)),
  ],
  [
    new RegExp(`\\b(?:this |on )?(${WEEKDAYS.join('|')})\\b`),
    (t, m) => day(nextWeekday(t, m[1] as string, false)),
  ],
  [new RegExp(`\\b(${MONTH_PATTERN})\\b`), (t, m) => monthSpan(t, m[1] as string)],
];

/**
 * The span of time a question names ("this weekend", "in March", "next Friday", "tomorrow"),
 * resolved in timeZone against now. "next Friday" is the first Friday after today; a month is
 * the coming one (this year's unless it is over). Undefined when the words name no time.
 */
export function resolveDateRange(text: string, now: Date, timeZone: string): DateRange | undefined {
  const lower = text.toLowerCase();
  const today = DateTime.fromJSDate(now, { zone: timeZone });
  for (const [pattern, resolve] of PHRASES) {
    const match = pattern.exec(lower);
    if (!match) continue;
    const [from, to] = resolve(today.startOf('day'), match);
    return { from: from.toJSDate(), to: to.toJSDate(), phrase: match[0] };
  }
  return undefined;
}

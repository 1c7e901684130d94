import type { Course, EventRecord } from '../data/catalog';
import { hasFilters, type EventQuery } from '../retrieval/event-search';

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const CATEGORY_PLURALS: Record<string, string> = {
  concert: 'concerts',
  theatre: 'theatre and musical shows',
  festival: 'festivals',
  conference: 'conferences',
  sports: 'sports events',
  exhibition: 'exhibitions',
  comedy: 'comedy shows',
};

/** "2027-06-12T19:30:00+02:00" -> "Sat 12 Jun 2027, 19:30" in the event's own local time. */
export function formatEventDate(isoWithOffset: string): string {
  const [year, month, day] = isoWithOffset.slice(0, 10).split('-').map(Number) as [
    number,
    number,
    number,
  ];
  const weekday = WEEKDAYS[new Date(Date.UTC(year, month - 1, day)).getUTCDay()];
  const monthName = (MONTH_NAMES[month - 1] ?? '').slice(0, 3);
  return `${weekday} ${day} ${monthName} ${year}, ${isoWithOffset.slice(11, 16)}`;
}

export function formatEvent(e: EventRecord): string {
  return `- **${e.name}** (${e.category}) - ${formatEventDate(e.date)} · ${e.venue}, ${e.city} · from ${e.priceFrom} ${e.currency}`;
}

export function formatCourse(c: Course): string {
  const when = c.startDate ? `starts ${c.startDate}` : 'start any time';
  return `- **${c.title}** - ${c.level}, ${c.format} (${when}), ${c.durationWeeks} weeks, ${c.price} ${c.currency}: ${c.description}`;
}

/** "concerts in Berlin in June" from the query's filters. */
export function describeEventQuery(query: EventQuery): string {
  if (!hasFilters(query)) return 'events matching your question';
  const what =
    query.categories.length > 0
      ? query.categories.map((c) => CATEGORY_PLURALS[c] ?? c).join(' and ')
      : 'events';
  const where = query.cities.length > 0 ? ` in ${query.cities.join(' or ')}` : '';
  const when =
    query.months.length > 0
      ? ` in ${query.months.map((m) => MONTH_NAMES[m - 1]).join(' or ')}`
      : '';
  return `${what}${where}${when}`;
}

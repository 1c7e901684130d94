import { DateTime } from 'luxon';

/** The sample organization's fixed "now": Wednesday 18 November 2026, 10:00 in Berlin. */
export const SAMPLE_NOW = new Date('2026-11-18T09:00:00Z');
export const SAMPLE_ZONE = 'Europe/Berlin';
const CITIES = ['Berlin', 'Hamburg', 'Munich', 'Vienna'];
const KINDS = ['concert', 'theatre', 'comedy', 'exhibition'];

/**
 * Berlin concerts at the edges of the sample weekend (Sat 21 - Sun 22 Nov 2026, Berlin time), the
 * first five events: inside it, Friday late, Monday just after midnight (still Sunday in UTC), the weekend before.
 */
const PINNED: Record<number, string> = {
  0: '2026-11-21T20:00',
  1: '2026-11-20T23:30',
  2: '2026-11-23T00:30',
  3: '2026-11-22T23:30',
  4: '2026-11-14T20:00',
};

export interface SampleEvent {
  id: string;
  title: string;
  description: string;
  venue: string;
  city: string;
  startsAt: string;
  price: number;
  currency: string;
  url: string;
  tags: string[];
}

/** 300 events from four weeks before the sample's now to twenty weeks after it, in four cities (deterministic). */
export function sampleEvents(count = 300): SampleEvent[] {
  const start = DateTime.fromISO('2026-10-21T00:00', { zone: SAMPLE_ZONE });
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: count }, (_, i) => {
    const pinned = PINNED[i];
    const city = pinned ? 'Berlin' : (CITIES[Math.floor(next() * CITIES.length)] as string);
    const kind = pinned ? 'concert' : (KINDS[Math.floor(next() * KINDS.length)] as string);
    const random = start.plus({
      days: Math.floor(next() * 168),
      hours: 18 + Math.floor(next() * 6),
      minutes: 30 * Math.floor(next() * 2),
    });
    const when = pinned ? DateTime.fromISO(pinned, { zone: SAMPLE_ZONE }) : random;
    const id = `ev${String(i).padStart(3, '0')}`;
    return {
      id,
      title: `${city} ${kind} night ${i}`,
      description: `A ${kind} evening in ${city}${i % 7 === 0 ? ' with jazz standards' : ''}.`,
      venue: `${city} Hall ${i % 5}`,
      city,
      startsAt: when.toISO() as string,
      price: 10 + (i % 9) * 5,
      currency: 'EUR',
      url: `https://tickets.example/${id}`,
      tags: [kind],
    };
  });
}

/** Concerts in Berlin on the weekend after the sample's now (Sat 21 - Sun 22 Nov 2026, Berlin time), by hand. */
export function berlinConcertsThisWeekend(events: SampleEvent[]): SampleEvent[] {
  return events
    .filter((e) => e.city === 'Berlin' && e.tags.includes('concert'))
    .filter((e) =>
      ['2026-11-21', '2026-11-22'].includes(
        DateTime.fromISO(e.startsAt, { zone: SAMPLE_ZONE }).toISODate() as string,
      ),
    )
    .sort((a, b) => Date.parse(a.startsAt) - Date.parse(b.startsAt));
}

/** Three courses with curricula, as the CSV a client would export (one row per lesson). */
export const SAMPLE_COURSES_CSV = [
  'id,title,level,url,tags,price,module,lesson,lesson_summary',
  'py101,Python for Data Analysis,beginner,https://learn.example/py101,python|data,49,Python basics,Variables and types,Numbers strings and lists',
  'py101,Python for Data Analysis,beginner,https://learn.example/py101,python|data,49,Python basics,Control flow,if for while',
  'py101,Python for Data Analysis,beginner,https://learn.example/py101,python|data,49,Pandas,DataFrames,Load and filter tables',
  'py101,Python for Data Analysis,beginner,https://learn.example/py101,python|data,49,Visualisation,Charts with matplotlib,',
  'ml201,Machine Learning in Practice,intermediate,https://learn.example/ml201,python|ml,129,Supervised learning,Regression,',
  'ml201,Machine Learning in Practice,intermediate,https://learn.example/ml201,python|ml,129,Supervised learning,Classification,',
  'ml201,Machine Learning in Practice,intermediate,https://learn.example/ml201,python|ml,129,Model evaluation,Cross-validation,',
  'ux301,Advanced UX Research,advanced,https://learn.example/ux301,design|research,199,Interviews,Planning interviews,',
  'ux301,Advanced UX Research,advanced,https://learn.example/ux301,design|research,199,Synthesis,Affinity mapping,',
].join('\n');

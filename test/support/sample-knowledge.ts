/** Sample data of a ticket shop and a course catalogue, relative to the real current date (UTC). */

const DAY = 86_400_000;
const CITIES = ['Berlin', 'Hamburg', 'Munich', 'Vienna'];
const KINDS = ['concert', 'theatre', 'comedy', 'exhibition'];

export interface SampleEvent {
  id: string;
  title: string;
  city: string;
  venue: string;
  startsAt: string;
  price: number;
  currency: string;
  url: string;
  tags: string[];
}

/** Saturday 00:00 UTC of the weekend "this weekend" means at now (on Sunday: yesterday). */
export function weekendStart(now: Date): Date {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const weekday = (now.getUTCDay() + 6) % 7; // Monday 0 .. Sunday 6
  return new Date(today + (5 - weekday) * DAY);
}

function event(i: number, city: string, kind: string, at: Date): SampleEvent {
  const id = `ev${String(i).padStart(3, '0')}`;
  return {
    id,
    title: `${city} ${kind} night ${i}`,
    city,
    venue: `${city} Hall ${i % 5}`,
    startsAt: at.toISOString(),
    price: 10 + (i % 9) * 5,
    currency: 'EUR',
    url: `https://tickets.example/${id}`,
    tags: [kind],
  };
}

/** count events from four weeks ago to twenty weeks ahead; the first five are Berlin concerts at the weekend's edges. */
export function sampleEvents(now: Date, count = 300): SampleEvent[] {
  const saturday = weekendStart(now).getTime();
  const pinned = [
    saturday + 20 * 3600_000,
    saturday - 30 * 60_000,
    saturday + 2 * DAY + 30 * 60_000,
    saturday + DAY + 23.5 * 3600_000,
    saturday - 7 * DAY + 20 * 3600_000,
  ];
  let seed = 11;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const start = saturday - 28 * DAY;
  return Array.from({ length: count }, (_, i) => {
    const at = pinned[i];
    if (at !== undefined) return event(i, 'Berlin', 'concert', new Date(at));
    const city = CITIES[Math.floor(next() * CITIES.length)] as string;
    const kind = KINDS[Math.floor(next() * KINDS.length)] as string;
    return event(
      i,
      city,
      kind,
      new Date(start + Math.floor(next() * 168) * DAY + (18 + Math.floor(next() * 5)) * 3600_000),
    );
  });
}

/** By hand: Berlin concerts starting this weekend (Saturday and Sunday, UTC) that are not over. */
export function berlinConcertsThisWeekend(events: SampleEvent[], now: Date): SampleEvent[] {
  const from = weekendStart(now).getTime();
  const to = from + 2 * DAY;
  return events
    .filter((e) => e.city === 'Berlin' && e.tags.includes('concert'))
    .filter(
      (e) =>
        Date.parse(e.startsAt) >= from &&
        Date.parse(e.startsAt) < to &&
        Date.parse(e.startsAt) >= now.getTime(),
    )
    .sort((a, b) => Date.parse(a.startsAt) - Date.parse(b.startsAt));
}

/** Three courses with curricula, one CSV row per lesson. */
export const SAMPLE_COURSES_CSV = [
  'id,title,level,url,tags,price,module,lesson',
  'py101,Python for Data Analysis,beginner,https://learn.example/py101,python|data,49,Python basics,Variables and types',
  'py101,Python for Data Analysis,beginner,https://learn.example/py101,python|data,49,Python basics,Control flow',
  'py101,Python for Data Analysis,beginner,https://learn.example/py101,python|data,49,Pandas,DataFrames',
  'ml201,Machine Learning in Practice,intermediate,https://learn.example/ml201,python|ml,129,Supervised learning,Regression',
  'ux301,Advanced UX Research,advanced,https://learn.example/ux301,design|research,199,Interviews,Planning interviews',
].join('\n');

import { DateTime } from 'luxon';
import { titleOf, urlOf } from '../knowledge/documents';
import type { CourseFields, EventFields } from '../knowledge/kinds';
import type { KnowledgeQuery } from '../retrieval/knowledge-query';
import type { Retrieval, RetrievedDocument } from '../retrieval/knowledge-retriever';
import type { ContextItem } from './types';

/** "[title](url)" for a retrieved document, or its bold title when it has no url (nothing else is ever linked). */
export function citation(found: RetrievedDocument): string {
  const title = titleOf(found.doc).replace(/[[\]]/g, '');
  const url = urlOf(found.doc);
  return url ? `[${title}](${url})` : `**${title}**`;
}

function when(iso: string, zone: string): string {
  return DateTime.fromISO(iso, { zone }).toFormat('ccc d LLL yyyy, HH:mm');
}

function eventLine(found: RetrievedDocument): string {
  const e = found.doc.fields as unknown as EventFields;
  const place = [e.venue, e.city].filter(Boolean).join(', ');
  const price =
    typeof e.price === 'number'
      ? e.price === 0
        ? 'free'
        : `from ${e.price} ${e.currency ?? ''}`.trim()
      : undefined;
  return `- ${citation(found)} - ${[when(e.startsAt, found.collection.timeZone), place, price].filter(Boolean).join(' · ')}`;
}

function courseLine(found: RetrievedDocument): string {
  const c = found.doc.fields as unknown as CourseFields;
  const modules = c.modules.map((m) => m.title).join(', ');
  return `- ${citation(found)} - ${[c.level, c.modules.length > 0 ? `${c.modules.length} modules: ${modules}` : undefined].filter(Boolean).join(' · ')}`;
}

function passageLine(found: RetrievedDocument): string {
  const text = found.passage.replace(/\s+/g, ' ').trim();
  return `- ${citation(found)}: ${text.length > 280 ? `${text.slice(0, 279)}…` : text}`;
}

export function knowledgeLine(found: RetrievedDocument): string {
  if (found.doc.kind === 'events') return eventLine(found);
  if (found.doc.kind === 'courses') return courseLine(found);
  return passageLine(found);
}

export function knowledgeItems(retrieval: Retrieval): ContextItem[] {
  return retrieval.results.map((found): ContextItem => ({ kind: 'knowledge', found }));
}

/** "concerts in Berlin, Sat 21 Nov - Sun 22 Nov": what the question asked, as read. */
function describe(query: KnowledgeQuery | undefined, zone: string): string {
  if (!query) return 'your question';
  const parts = [
    query.tags.join('/') || undefined,
    query.levels.join('/') || undefined,
    query.cities.length ? `in ${query.cities.join(' or ')}` : undefined,
  ];
  if (query.dates) {
    const last = new Date(query.dates.to.getTime() - 1).toISOString();
    parts.push(
      `${query.dates.phrase} (${DateTime.fromJSDate(query.dates.from, { zone }).toFormat('ccc d LLL')} - ${DateTime.fromISO(last, { zone }).toFormat('ccc d LLL')})`,
    );
  }
  if (query.maxPrice !== undefined)
    parts.push(query.maxPrice === 0 ? 'free' : `up to ${query.maxPrice}`);
  if (query.terms.length > 0) parts.push(`about "${query.terms.join(' ')}"`);
  return parts.filter(Boolean).join(' ') || 'your question';
}

/** The builtin engine's answer from retrieved documents: one cited line each, or a plain "nothing found". */
export function knowledgeAnswer(retrieval: Retrieval): string {
  // The question as read against the collection that answered (or the first searched).
  const first =
    retrieval.results[0]?.collection ??
    retrieval.collections.find((c) => c.kind === 'events') ??
    retrieval.collections[0];
  const what = describe(
    first ? retrieval.queries.get(first.name) : undefined,
    first?.timeZone ?? 'UTC',
  );
  if (retrieval.results.length === 0) {
    return `I found nothing matching ${what} in ${retrieval.collections.map((c) => c.name).join(', ')}. Past events are not listed; try another date, place or wording.`;
  }
  return `Here is what I found for ${what}:\n${retrieval.results.map(knowledgeLine).join('\n')}`;
}

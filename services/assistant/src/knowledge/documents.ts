import type { KnowledgeDocument } from '../store/knowledge/port';
import { chunkText } from './chunk';
import type {
  ArticleFields,
  CollectionKind,
  CourseFields,
  DocumentFields,
  EventFields,
} from './kinds';

export function titleOf(doc: Pick<KnowledgeDocument, 'kind' | 'fields' | 'id'>): string {
  const title = (doc.fields as { title?: string }).title;
  return title?.trim() || doc.id;
}

export function urlOf(doc: Pick<KnowledgeDocument, 'fields'>): string | undefined {
  return (doc.fields as { url?: string }).url || undefined;
}

export function tagsOf(doc: Pick<KnowledgeDocument, 'fields'>): string[] {
  return (doc.fields as { tags?: string[] }).tags ?? [];
}

function eventText(e: EventFields): string {
  const where = [e.venue, e.city].filter(Boolean).join(', ');
  return [e.title, e.tags?.join(', '), where, e.description].filter(Boolean).join('\n');
}

function courseText(c: CourseFields): string {
  const modules = c.modules.map(
    (m, i) =>
      `Module ${i + 1}: ${m.title}\n${m.lessons.map((l) => `- ${l.title}${l.summary ? `: ${l.summary}` : ''}`).join('\n')}`,
  );
  return [c.title, c.level, c.tags?.join(', '), c.description, ...modules]
    .filter(Boolean)
    .join('\n');
}

/** The text of a document that retrieval searches, by kind. */
export function searchableText(kind: CollectionKind, fields: Record<string, unknown>): string {
  switch (kind) {
    case 'events':
      return eventText(fields as unknown as EventFields);
    case 'courses':
      return courseText(fields as unknown as CourseFields);
    case 'articles': {
      const a = fields as unknown as ArticleFields;
      return [a.title, a.tags?.join(', '), a.body].filter(Boolean).join('\n');
    }
    case 'documents': {
      const d = fields as unknown as DocumentFields;
      return [d.title, d.tags?.join(', '), d.text].filter(Boolean).join('\n');
    }
  }
}

/** Chunks of a document; later chunks repeat the title so each stands on its own in a prompt. */
export function chunksOf(
  kind: CollectionKind,
  id: string,
  fields: Record<string, unknown>,
): string[] {
  const title = titleOf({ kind, fields, id });
  return chunkText(searchableText(kind, fields)).map((chunk, i) =>
    i === 0 || chunk.startsWith(title) ? chunk : `${title}\n${chunk}`,
  );
}

export type { KnowledgeDocument } from '../store/knowledge/port';

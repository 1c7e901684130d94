import type { KnowledgeDocument } from '../store/knowledge/port';
import { chunkText } from './chunk';
import type {
  ArticleFields,
  CollectionKind,
  CourseFields,
  DocumentFields,
  EventFields,
  Metadata,
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

/** The metadata of a document as "name: value" pairs (an import's columns the kind does not know). */
export function metadataOf(doc: Pick<KnowledgeDocument, 'fields'>): Array<[string, string]> {
  const metadata = (doc.fields as { metadata?: Metadata }).metadata ?? {};
  return Object.entries(metadata).map(([name, value]) => [name, String(value)]);
}

/** Metadata as lines of text, so that retrieval finds its values and a model reads them. */
function metadataText(fields: { metadata?: Metadata }): string {
  return Object.entries(fields.metadata ?? {})
    .map(([name, value]) => `${name}: ${String(value)}`)
    .join('\n');
}

function eventText(e: EventFields): Array<string | undefined> {
  const where = [e.venue, e.city].filter(Boolean).join(', ');
  return [e.title, e.tags?.join(', '), where, metadataText(e), e.description];
}

function courseText(c: CourseFields): Array<string | undefined> {
  const modules = c.modules.map(
    (m, i) =>
      `Module ${i + 1}: ${m.title}\n${m.lessons.map((l) => `- ${l.title}${l.summary ? `: ${l.summary}` : ''}`).join('\n')}`,
  );
  return [c.title, c.level, c.tags?.join(', '), metadataText(c), c.description, ...modules];
}

/**
 * The text of a document that retrieval searches, by kind: its metadata comes before the long
 * text (description, body), so that the first chunk, the one most often shown, holds it.
 */
export function searchableText(kind: CollectionKind, fields: Record<string, unknown>): string {
  return textParts(kind, fields).filter(Boolean).join('\n');
}

function textParts(
  kind: CollectionKind,
  fields: Record<string, unknown>,
): Array<string | undefined> {
  switch (kind) {
    case 'events':
      return eventText(fields as unknown as EventFields);
    case 'courses':
      return courseText(fields as unknown as CourseFields);
    case 'articles': {
      const a = fields as unknown as ArticleFields;
      return [a.title, a.tags?.join(', '), metadataText(a), a.body];
    }
    case 'documents': {
      const d = fields as unknown as DocumentFields;
      return [d.title, d.tags?.join(', '), metadataText(d), d.text];
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

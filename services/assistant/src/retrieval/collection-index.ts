import MiniSearch from 'minisearch';
import type { KnowledgeDocument } from '../knowledge/documents';
import { tagsOf, titleOf } from '../knowledge/documents';
import { tokenize } from './tokenize';

interface ChunkEntry {
  id: string;
  doc: string;
  title: string;
  text: string;
  tags: string;
}

export interface ChunkHit {
  docId: string;
  chunk: number;
  /** How many of the query's terms the document's best chunk contains. */
  matched: number;
  /** How many of them name what the document is about (its title or tags). */
  topical: number;
  /** The chunk's BM25 score (title and tags boosted). */
  score: number;
}

/** Same analysis as the rest of retrieval: lower-cased, accent-free, stopwords out, light stemming. */
function processTerm(term: string): string | null {
  return tokenize(term)[0] ?? null;
}

/** BM25 (MiniSearch) over one collection's chunks; a document ranks by its best chunk. */
export class CollectionIndex {
  readonly byId: Map<string, KnowledgeDocument>;
  private readonly search: MiniSearch<ChunkEntry>;

  constructor(readonly documents: KnowledgeDocument[]) {
    this.byId = new Map(documents.map((d) => [d.id, d]));
    this.search = new MiniSearch<ChunkEntry>({
      fields: ['title', 'text', 'tags'],
      storeFields: ['doc'],
      processTerm,
      searchOptions: { boost: { title: 2, tags: 1.5 }, combineWith: 'OR' },
    });
    this.search.addAll(
      documents.flatMap((doc) =>
        doc.chunks.map((text, i) => ({
          id: `${doc.id}#${i}`,
          doc: doc.id,
          title: titleOf(doc),
          text,
          tags: tagsOf(doc).join(' '),
        })),
      ),
    );
  }

  /** Chunks matching the terms among allowed documents, one (the best) per document, best first. */
  lexical(terms: string[], allowed: Set<string>): ChunkHit[] {
    const seen = new Set<string>();
    const hits: ChunkHit[] = [];
    for (const result of this.search.search(terms.join(' '), {
      filter: (r) => allowed.has(r.doc as string),
      // The terms are index terms already: stemming them again would miss ("allee" -> "alle" -> "all").
      processTerm: (term) => term,
    })) {
      const docId = result.doc as string;
      if (seen.has(docId)) continue;
      seen.add(docId);
      hits.push({
        docId,
        chunk: Number(String(result.id).split('#').pop()),
        matched: new Set(result.queryTerms).size,
        topical: Object.values(result.match as Record<string, string[]>).filter(
          (fields) => fields.includes('title') || fields.includes('tags'),
        ).length,
        score: result.score,
      });
    }
    return hits;
  }
}

import type { Embedder } from '../knowledge/embedder';
import type { KnowledgeDocument } from '../knowledge/documents';
import type { CollectionKind, EventFields } from '../knowledge/kinds';
import type { KnowledgeCollection, KnowledgeStore } from '../store/knowledge/port';
import { CollectionIndex } from './collection-index';
import {
  hasStructuredFilters,
  isCurrent,
  matchesQuery,
  namesKind,
  parseKnowledgeQuery,
  withInherited,
  type KnowledgeQuery,
  type QueryConstraints,
} from './knowledge-query';
import { titleOf, tagsOf } from '../knowledge/documents';
import { normalize } from '../language/normalize';
import { tokenize } from './tokenize';
import { cosine, fusedScores } from './rank-fusion';

/** Why a document ranked where it did; absent when only filters (dates, city...) chose it. */
export interface PassageScores {
  /** Reciprocal rank fusion of the lexical and vector rankings (the order of the results). */
  fused: number;
  /** BM25 of the matching chunk; undefined when no word of the question is in it. */
  lexical?: number;
  /** Cosine similarity of the chunk to the question; undefined without an embeddings model. */
  similarity?: number;
}

/** A document retrieved for a question, with the passage that matched. */
export interface RetrievedDocument {
  doc: KnowledgeDocument;
  collection: KnowledgeCollection;
  passage: string;
  scores?: PassageScores;
}

export interface Retrieval {
  /** The question as read against each searched collection, by collection name. */
  queries: Map<string, KnowledgeQuery>;
  results: RetrievedDocument[];
  /** The collections searched. */
  collections: KnowledgeCollection[];
}

export interface RetrievalRequest {
  organization: string;
  text: string;
  /** Collection names to search; undefined: every collection of the organization. */
  collections?: string[];
  /** Only collections of these kinds. */
  kinds?: CollectionKind[];
  /** Per collection. */
  limit?: number;
  /** The organization's IANA zone, for collections without their own (default UTC). */
  timeZone?: string;
  /** The organization's collections as the caller has just read them (not read again). */
  known?: KnowledgeCollection[];
  /** Constraints of the conversation so far; the question's own replace them kind by kind. */
  inherit?: QueryConstraints;
}

/**
 * Of a question's content terms, how many a lexical hit must contain: all of one or two, half
 * of more. One shared common word ("bring") is a coincidence, not an answer.
 */
export function requiredMatches(terms: number): number {
  return terms <= 2 ? terms : Math.ceil(terms / 2);
}

/**
 * Inherited cities and tags that this collection has (a city of the events says nothing about
 * courses). Help articles and documents inherit nothing: a conversation's filters on events
 * ("for kids", "under 20") do not hide the shop's price list.
 */
function inheritedFor(
  inherit: QueryConstraints | undefined,
  documents: KnowledgeDocument[],
  kind: CollectionKind,
): QueryConstraints | undefined {
  if (!inherit || kind === 'articles' || kind === 'documents') return undefined;
  const cities = new Set(
    documents.map((d) => ((d.fields as Partial<EventFields>).city ?? '').toLowerCase()),
  );
  const tags = new Set(documents.flatMap((d) => tagsOf(d).map((t) => t.toLowerCase())));
  return {
    ...inherit,
    cities: (inherit.cities ?? []).filter((c) => cities.has(c.toLowerCase())),
    tags: (inherit.tags ?? []).filter((t) => tags.has(t.toLowerCase())),
  };
}

/** The collection with the zone its dates are read in: its own, else the organization's. */
export function zoned(
  collection: KnowledgeCollection,
  organizationZone = 'UTC',
): KnowledgeCollection {
  return collection.timeZone ? collection : { ...collection, timeZone: organizationZone };
}

const DEFAULT_LIMIT = 8;

interface QueryVector {
  model: string;
  vector: number[];
}
/** Vector hits below this similarity are noise, not meaning: they rerank nothing. */
const MIN_SIMILARITY = 0.2;
/**
 * A document no word of the question found is a hit by meaning alone only from this similarity
 * on. all-MiniLM-L6-v2 puts unrelated question/passage pairs at 0.15-0.35 ("Can I bring my dog?"
 * to a store's accessibility page: 0.33), paraphrases of one fact from about 0.4.
 */
export const MEANING_ONLY_SIMILARITY = 0.4;

interface CachedIndex {
  revision: number;
  index: CollectionIndex;
}

const startOf = (d: KnowledgeDocument) => Date.parse((d.fields as unknown as EventFields).startsAt);

/**
 * Retrieval over an organization's knowledge: structured filters from the question's words
 * (dates, city, price, level, tags) and, for the remaining words, BM25 (MiniSearch) fused with
 * vector similarity (RRF) when an embeddings model is configured. Past events are never returned.
 * Indexes are built per collection revision, so every replica answers from the stored data.
 */
export class KnowledgeRetriever {
  private readonly indexes = new Map<string, CachedIndex>();

  constructor(
    private readonly store: KnowledgeStore,
    private readonly now: () => Date = () => new Date(),
    private readonly embedder?: Embedder,
  ) {}

  async retrieve(request: RetrievalRequest): Promise<Retrieval> {
    const collections = await this.collectionsOf(request);
    const queries = new Map<string, KnowledgeQuery>();
    const results: RetrievedDocument[] = [];
    const queryVector = await this.queryVector(request.organization, request.text, collections);
    for (const collection of collections) {
      const index = await this.indexOf(collection);
      const query = this.queryFor(request, collection, index);
      queries.set(collection.name, query);
      const found = this.search(index, collection.kind, query, queryVector).slice(
        0,
        request.limit ?? DEFAULT_LIMIT,
      );
      results.push(
        ...found.map(({ doc, chunk, scores }) => ({
          doc,
          collection,
          passage: doc.chunks[chunk] ?? doc.chunks[0] ?? '',
          scores,
        })),
      );
    }
    return { queries, results, collections };
  }

  /** How a question reads against each collection (filters, remaining words), without searching. */
  async read(request: RetrievalRequest): Promise<Map<string, KnowledgeQuery>> {
    const queries = new Map<string, KnowledgeQuery>();
    for (const collection of await this.collectionsOf(request))
      queries.set(
        collection.name,
        this.queryFor(request, collection, await this.indexOf(collection)),
      );
    return queries;
  }

  private async collectionsOf(request: RetrievalRequest): Promise<KnowledgeCollection[]> {
    const all = request.known ?? (await this.store.listCollections(request.organization));
    return all
      .filter(
        (c) =>
          (request.collections === undefined || request.collections.includes(c.name)) &&
          (!request.kinds || request.kinds.includes(c.kind)),
      )
      .map((c) => zoned(c, request.timeZone));
  }

  private queryFor(
    request: RetrievalRequest,
    collection: KnowledgeCollection,
    index: CollectionIndex,
  ): KnowledgeQuery {
    return withInherited(
      parseKnowledgeQuery(
        request.text,
        index.documents,
        this.now(),
        collection.timeZone,
        collection.kind,
        request.inherit?.dates,
      ),
      inheritedFor(request.inherit, index.documents, collection.kind),
    );
  }

  /**
   * The document of these collections whose title the text names (every content word of a title
   * of two or more words, or a one-word title), the longest such title first; undefined when none.
   */
  async titled(
    collections: KnowledgeCollection[],
    text: string,
  ): Promise<RetrievedDocument | undefined> {
    const said = new Set(tokenize(text));
    const normalized = normalize(text);
    let best: { found: RetrievedDocument; size: number } | undefined;
    for (const collection of collections) {
      const index = await this.indexOf(collection);
      for (const doc of index.documents) {
        if (!isCurrent(doc, this.now())) continue;
        const title = titleOf(doc);
        const terms = [...new Set(tokenize(title))];
        const named =
          terms.length >= 2
            ? terms.every((t) => said.has(t))
            : terms.length === 1 && normalized.includes(normalize(title));
        if (named && (!best || terms.length > best.size))
          best = { found: { doc, collection, passage: doc.chunks[0] ?? '' }, size: terms.length };
      }
    }
    return best?.found;
  }

  /** Some current documents of a collection: the next events for events, else the first stored. */
  async samples(collection: KnowledgeCollection, count: number): Promise<KnowledgeDocument[]> {
    const now = this.now();
    const current = (await this.indexOf(collection)).documents.filter((d) => isCurrent(d, now));
    return sortForKind(current).slice(0, count);
  }

  /** One document of the organization by collection and id (get_item), undefined when absent. */
  getItem(
    organization: string,
    collection: string,
    id: string,
  ): Promise<KnowledgeDocument | undefined> {
    return this.store.getDocument(organization, collection, id);
  }

  private search(
    index: CollectionIndex,
    kind: CollectionKind,
    query: KnowledgeQuery,
    queryVector: QueryVector | undefined,
  ): Array<{ doc: KnowledgeDocument; chunk: number; scores?: PassageScores }> {
    const now = this.now();
    const candidates = index.documents.filter((d) => isCurrent(d, now) && matchesQuery(d, query));
    const filtered = hasStructuredFilters(query, kind);
    if (query.terms.length === 0) {
      // Filters alone ("concerts in Berlin this weekend"), or the kind as such ("what's on?", "which courses?").
      if (!filtered && !namesKind(query.text, kind)) return [];
      return sortForKind(candidates).map((doc) => ({ doc, chunk: 0 }));
    }
    const allowed = new Set(candidates.map((d) => d.id));
    const needed = requiredMatches(query.terms.length);
    // A help article is also a hit when the question names its subject (a word of its title or
    // tags: "return" for "Returns and refunds"), whatever else the question says in other words.
    const bySubject = kind === 'articles' || kind === 'documents';
    const lexical = index
      .lexical(query.terms, allowed)
      .filter((h) => h.matched >= needed || (bySubject && h.topical > 0));
    const chunkOf = new Map(lexical.map((h) => [h.docId, h.chunk]));
    const lexicalScore = new Map(lexical.map((h) => [h.docId, h.score]));
    const rankings = [lexical.map((h) => h.docId)];
    const similarity = new Map<string, number>();
    if (queryVector) {
      const lexicalHits = new Set(chunkOf.keys());
      const byMeaning = vectorRanking(
        candidates,
        queryVector.vector,
        queryVector.model,
        chunkOf,
      ).filter(({ id, score }) => lexicalHits.has(id) || score >= MEANING_ONLY_SIMILARITY);
      for (const { id, score } of byMeaning) similarity.set(id, score);
      rankings.push(byMeaning.map(({ id }) => id));
    }
    const ranked = fusedScores(rankings).map(({ id, score }) => ({
      doc: index.byId.get(id) as KnowledgeDocument,
      chunk: chunkOf.get(id) ?? 0,
      scores: { fused: score, lexical: lexicalScore.get(id), similarity: similarity.get(id) },
    }));
    // With a date or place asked for, events read best in date order.
    return filtered && ranked[0]?.doc.kind === 'events'
      ? ranked.sort((a, b) => startOf(a.doc) - startOf(b.doc))
      : ranked;
  }

  /** The question's vector; a failing embeddings model leaves the answer to BM25 rather than failing the reply. */
  private async queryVector(
    organization: string,
    text: string,
    collections: KnowledgeCollection[],
  ): Promise<QueryVector | undefined> {
    if (!this.embedder || collections.length === 0) return undefined;
    const embedding = await this.embedder.embed([text], organization).catch(() => undefined);
    const vector = embedding?.vectors[0];
    return embedding && vector ? { model: embedding.model, vector } : undefined;
  }

  private async indexOf(collection: KnowledgeCollection): Promise<CollectionIndex> {
    const key = JSON.stringify([collection.organization, collection.name]);
    const cached = this.indexes.get(key);
    if (cached && cached.revision === collection.revision) return cached.index;
    const index = new CollectionIndex(
      await this.store.allDocuments(collection.organization, collection.name),
    );
    this.indexes.set(key, { revision: collection.revision, index });
    return index;
  }
}

function sortForKind(documents: KnowledgeDocument[]): KnowledgeDocument[] {
  return documents[0]?.kind === 'events'
    ? [...documents].sort((a, b) => startOf(a) - startOf(b))
    : documents;
}

/** Candidates by their best chunk's similarity to the question; records which chunk that was. */
function vectorRanking(
  candidates: KnowledgeDocument[],
  queryVector: number[],
  model: string,
  chunkOf: Map<string, number>,
): Array<{ id: string; score: number }> {
  const scored: Array<{ id: string; score: number; chunk: number }> = [];
  for (const doc of candidates) {
    // Vectors of another model live in another space: not comparable.
    const vectors = doc.embeddingModel === model ? (doc.embeddings ?? []) : [];
    let best = { score: -1, chunk: 0 };
    vectors.forEach((v, chunk) => {
      const score = cosine(queryVector, v);
      if (score > best.score) best = { score, chunk };
    });
    if (best.score >= MIN_SIMILARITY) scored.push({ id: doc.id, ...best });
  }
  scored.sort((a, b) => b.score - a.score);
  for (const s of scored) if (!chunkOf.has(s.id)) chunkOf.set(s.id, s.chunk);
  return scored.map(({ id, score }) => ({ id, score }));
}

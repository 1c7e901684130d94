import { tokenize } from './tokenize';

export interface Bm25Document<T> {
  id: string;
  /** The text that is indexed (weight a field by repeating it). */
  text: string;
  item: T;
}

export interface Bm25Hit<T> {
  id: string;
  item: T;
  score: number;
  /** Distinct query terms the document contains. */
  matchedTerms: string[];
}

export interface Bm25Options {
  /** Term-frequency saturation. */
  k1?: number;
  /** Length normalisation strength. */
  b?: number;
}

interface IndexedDocument<T> {
  doc: Bm25Document<T>;
  termFrequency: Map<string, number>;
  length: number;
}

/** Okapi BM25 over a small, fixed set of documents, held in memory. */
export class Bm25Index<T> {
  private readonly docs: IndexedDocument<T>[];
  private readonly documentFrequency = new Map<string, number>();
  private readonly averageLength: number;
  private readonly k1: number;
  private readonly b: number;

  constructor(documents: Bm25Document<T>[], options: Bm25Options = {}) {
    this.k1 = options.k1 ?? 1.2;
    this.b = options.b ?? 0.75;
    this.docs = documents.map((doc) => indexDocument(doc));
    for (const indexed of this.docs) {
      for (const term of indexed.termFrequency.keys()) {
        this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
      }
    }
    const totalLength = this.docs.reduce((sum, d) => sum + d.length, 0);
    this.averageLength = this.docs.length > 0 ? totalLength / this.docs.length : 0;
  }

  get size(): number {
    return this.docs.length;
  }

  /** Documents with a positive score, best first (ties keep the documents' order). */
  search(query: string, limit = 5): Bm25Hit<T>[] {
    const terms = [...new Set(tokenize(query))];
    if (terms.length === 0) return [];
    return this.docs
      .map((indexed) => this.score(indexed, terms))
      .filter((hit) => hit.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
  }

  private score(indexed: IndexedDocument<T>, terms: string[]): Bm25Hit<T> {
    let score = 0;
    const matchedTerms: string[] = [];
    for (const term of terms) {
      const tf = indexed.termFrequency.get(term) ?? 0;
      if (tf === 0) continue;
      matchedTerms.push(term);
      const norm = 1 - this.b + (this.b * indexed.length) / (this.averageLength || 1);
      score += (this.idf(term) * tf * (this.k1 + 1)) / (tf + this.k1 * norm);
    }
    return { id: indexed.doc.id, item: indexed.doc.item, score, matchedTerms };
  }

  /** The "plus one" BM25 idf, never negative, so very common terms still count a little. */
  private idf(term: string): number {
    const n = this.documentFrequency.get(term) ?? 0;
    return Math.log(1 + (this.docs.length - n + 0.5) / (n + 0.5));
  }
}

function indexDocument<T>(doc: Bm25Document<T>): IndexedDocument<T> {
  const terms = tokenize(doc.text);
  const termFrequency = new Map<string, number>();
  for (const term of terms) termFrequency.set(term, (termFrequency.get(term) ?? 0) + 1);
  return { doc, termFrequency, length: terms.length };
}

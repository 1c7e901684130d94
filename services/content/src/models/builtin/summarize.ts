import type { SummaryLength } from '../text-model';
import { splitSentences, terms } from './text';

/** Share of the input's sentences kept, and the minimum kept, per target length. */
const TARGETS: Record<SummaryLength, { share: number; min: number }> = {
  short: { share: 0.2, min: 1 },
  medium: { share: 0.4, min: 2 },
  long: { share: 0.65, min: 3 },
};

/** Extra weight for the opening sentences, which usually state the topic. */
const POSITION_BONUS = [0.2, 0.1, 0.05];

type Vector = Map<string, number>;

function tfidfVectors(sentences: string[][]): Vector[] {
  const documentFrequency = new Map<string, number>();
  for (const sentence of sentences) {
    for (const term of new Set(sentence))
      documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  }
  return sentences.map((sentence) => {
    const vector: Vector = new Map();
    for (const term of sentence) vector.set(term, (vector.get(term) ?? 0) + 1);
    for (const [term, tf] of vector) {
      const idf = Math.log((1 + sentences.length) / (1 + (documentFrequency.get(term) ?? 0))) + 1;
      vector.set(term, (tf / sentence.length) * idf);
    }
    return vector;
  });
}

function cosine(a: Vector, b: Vector): number {
  let dot = 0;
  for (const [term, weight] of a) dot += weight * (b.get(term) ?? 0);
  const norm = (v: Vector) => Math.sqrt([...v.values()].reduce((sum, w) => sum + w * w, 0));
  const denominator = norm(a) * norm(b);
  return denominator === 0 ? 0 : dot / denominator;
}

/** Centrality (mean similarity to the other sentences) plus a position bonus; very short sentences are damped. */
export function scoreSentences(sentences: string[]): number[] {
  const vectors = tfidfVectors(sentences.map(terms));
  const centrality = vectors.map((v, i) => {
    if (vectors.length < 2) return 1;
    const total = vectors.reduce((sum, other, j) => (i === j ? sum : sum + cosine(v, other)), 0);
    return total / (vectors.length - 1);
  });
  const top = Math.max(...centrality, 1e-9);
  return sentences.map((sentence, i) => {
    const shortness = Math.min(1, terms(sentence).length / 4);
    return (centrality[i]! / top) * shortness + (POSITION_BONUS[i] ?? 0);
  });
}

/** How many sentences each target keeps; strictly growing from short to long while the input allows. */
export function sentencesToKeep(total: number, target: SummaryLength): number {
  const count = (t: SummaryLength) =>
    Math.min(total, Math.max(TARGETS[t].min, Math.round(total * TARGETS[t].share)));
  const short = count('short');
  const medium = Math.min(total, Math.max(count('medium'), short + 1));
  const long = Math.min(total, Math.max(count('long'), medium + 1));
  return { short, medium, long }[target];
}

/**
 * Extractive summary: the highest scoring sentences, in their original order. The kept sets
 * are nested (short within medium within long), so longer targets never give shorter text.
 */
export function summarize(text: string, target: SummaryLength): string {
  const sentences = splitSentences(text);
  if (sentences.length === 0) return '';
  const scores = scoreSentences(sentences);
  const ranked = sentences.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
  const kept = ranked.slice(0, sentencesToKeep(sentences.length, target)).sort((a, b) => a - b);
  return kept.map((i) => sentences[i]).join(' ');
}

/** Text utilities shared by the builtin engine's operations. */

const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'sr',
  'jr',
  'st',
  'vs',
  'etc',
  'e.g',
  'i.e',
  'inc',
  'ltd',
  'co',
  'no',
  'fig',
  'approx',
]);

/** Splits prose into sentences, keeping terminal punctuation and not breaking after common abbreviations. */
export function splitSentences(text: string): string[] {
  const sentences: string[] = [];
  for (const block of text.split(/\n\s*\n|\n(?=\s*[-*•+]\s|\s*\d+[.)]\s)/)) {
    const flat = block.replace(/\s+/g, ' ').trim();
    if (flat === '') continue;
    let start = 0;
    // Linear on any input: a boundary starts only where a run of terminal punctuation starts
    // (lookbehind), and the run is taken whole (a lookahead capture, which never backtracks).
    // The plain [.!?…]+ retried every position of a long run: 5 s on 1 MB of "!!!…".
    const boundary = /(?<![.!?…])(?=([.!?…]+))\1["')\]»]*\s+(?=["'([«¿¡]?[\p{Lu}\p{N}])/gu;
    for (let match = boundary.exec(flat); match; match = boundary.exec(flat)) {
      const candidate = flat.slice(start, match.index + match[0].length).trim();
      // Only the tail can hold an abbreviation; matching the whole candidate could be quadratic.
      const lastWord = /([\p{L}.]+)[.]+\S*\s*$/u
        .exec(candidate.slice(-64))?.[1]
        ?.toLowerCase()
        .replace(/\.$/, '');
      if (lastWord && (ABBREVIATIONS.has(lastWord) || /^\p{L}$/u.test(lastWord))) continue;
      sentences.push(candidate);
      start = match.index + match[0].length;
    }
    const rest = flat.slice(start).trim();
    if (rest) sentences.push(rest);
  }
  return sentences;
}

/** Lower-cased words (letters, digits, inner hyphens and apostrophes). */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? [];
}

const STOPWORDS = new Set(
  (
    'a an the and or but if then else of to in on at by for with from into onto about as is are was were be been being ' +
    'it its this that these those there here their they them he she his her we our you your i me my mine not no nor so ' +
    'than too very can could should would will shall may might must do does did done have has had having also just only ' +
    'more most some such any each every all both few other which who whom whose what when where why how up down out over ' +
    'under again further once same own s t don now while during before after above below between through against because ' +
    'until off per via one two three'
  ).split(' '),
);

export function isStopword(word: string): boolean {
  return STOPWORDS.has(word);
}

/** Content words with a crude plural folding, so "models" and "model" count as one term. */
export function terms(text: string): string[] {
  return words(text)
    .filter((w) => !isStopword(w) && w.length > 1)
    .map((w) => (w.length > 4 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
}

/** Ends a fragment as a sentence: capitalized first letter, terminal punctuation. */
export function asSentence(fragment: string): string {
  const trimmed = fragment.trim().replace(/[,;:]+$/, '');
  if (trimmed === '') return '';
  const capitalized = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?…]["')\]»]*$/.test(capitalized) ? capitalized : `${capitalized}.`;
}

/** FNV-1a 32-bit hash: a stable seed from the request, so equal inputs give equal output. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** mulberry32: a small deterministic PRNG returning floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

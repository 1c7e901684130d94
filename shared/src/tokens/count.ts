import { LRUCache } from 'lru-cache';

type Bpe = typeof import('gpt-tokenizer');
let bpe: Bpe | undefined;

/**
 * The o200k encoding, loaded on first use: loading it is about a quarter of a service's start-up
 * CPU, which the services that never count tokens (notification, recommendation) should not pay
 * on every start and restart. Services that count call loadTokenizer() as they start.
 */
export function loadTokenizer(): Bpe {
  // A synchronous, deferred load: countTokens is synchronous.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  bpe ??= require('gpt-tokenizer') as Bpe;
  return bpe;
}

/**
 * gpt-tokenizer's BPE is quadratic within one pre-token (a run of letters, digits, punctuation or
 * spaces with no break): 40,000 CJK characters in a row took seconds. Runs longer than this are
 * tokenized slice by slice, which keeps the work linear; ordinary text (no such run) is exact.
 */
export const MAX_RUN_CHARS = 128;

const LONG_RUN = new RegExp(`\\S{${MAX_RUN_CHARS + 1},}|\\s{${MAX_RUN_CHARS + 1},}`, 'gu');
const SLICE = new RegExp(`[^]{1,${MAX_RUN_CHARS}}`, 'gu');

/** The text in pieces the BPE handles in linear time: the stretches between long runs, and the slices of each long run. */
function* pieces(text: string): Generator<string> {
  let from = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    if (match.index > from) yield text.slice(from, match.index);
    for (const [slice] of match[0].matchAll(SLICE)) yield slice;
    from = match.index + match[0].length;
  }
  if (from < text.length) yield from === 0 ? text : text.slice(from);
}

/**
 * Token count with the o200k_base BPE (the tokenizer of current OpenAI models), in time linear in
 * the text: exact for text without a break-free run over MAX_RUN_CHARS; such a run is counted in
 * MAX_RUN_CHARS slices (within two tokens per slice of its exact count).
 */
export function countTokens(text: string): number {
  const known = rememberedTokens(text);
  if (known !== undefined) return known;
  let tokens = 0;
  const { countTokens: countO200k } = loadTokenizer();
  for (const piece of pieces(text)) tokens += countO200k(piece);
  rememberTokens(text, tokens);
  return tokens;
}

/**
 * Shorter texts are counted each time: the BPE on them costs about as much as a lookup. Longer ones
 * are counted once per process: a call checks its input against limits, reserves for it, trims a
 * conversation to a budget and reports usage, and an assistant's turns resend the same history and
 * retrieved passages, each about 40 µs per KB to tokenize again.
 */
const REMEMBER_FROM_CHARS = 256;
/** A longer text is not kept: it would push out many others. */
const REMEMBER_UP_TO_CHARS = 256_000;

/** Counts by text, bounded by the characters held (a few MB), the least recently used dropped first. */
const counted = new LRUCache<string, number>({
  maxSize: 4_000_000,
  maxEntrySize: REMEMBER_UP_TO_CHARS,
  sizeCalculation: (_count, text) => text.length,
});

/** The count of a text counted before in this process (undefined: not known). */
export function rememberedTokens(text: string): number | undefined {
  return text.length >= REMEMBER_FROM_CHARS ? counted.get(text) : undefined;
}

/** Keeps a text's count (made here or in a worker thread) for the next call that needs it. */
export function rememberTokens(text: string, tokens: number): void {
  if (text.length >= REMEMBER_FROM_CHARS && text.length <= REMEMBER_UP_TO_CHARS)
    counted.set(text, tokens);
}

/** The longest prefix of text that fits in maxTokens tokens (tokenized as countTokens does). */
export function truncateToTokens(text: string, maxTokens: number): string {
  const { encode, decode } = loadTokenizer();
  const kept: number[] = [];
  for (const piece of pieces(text)) {
    const tokens = encode(piece);
    if (kept.length + tokens.length > maxTokens)
      return decode([...kept, ...tokens.slice(0, maxTokens - kept.length)]);
    kept.push(...tokens);
  }
  return text;
}

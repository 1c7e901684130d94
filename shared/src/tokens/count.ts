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
  let tokens = 0;
  const { countTokens: countO200k } = loadTokenizer();
  for (const piece of pieces(text)) tokens += countO200k(piece);
  return tokens;
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
